import type { CommandHost } from "./command-host.ts";

/**
 * Quitting as the person asks it (Ctrl-C twice, Ctrl-D, /quit): while a prompt from the web runs
 * in the shared session, they are asked first, since quitting interrupts it (the sharing design);
 * otherwise it quits at once. Signals and a hang-up quit without asking.
 */
export async function quitAsked(app: CommandHost): Promise<void> {
  if (webTurnRunning(app) === null) {
    app.quit();
    return;
  }
  const quit = await app.pick("A prompt from the web is running in this shared session: quitting interrupts it", [
    { value: false, label: "Keep it running", description: "stay in the session" },
    { value: true, label: "Quit and interrupt it", description: "the web hears it was interrupted; lembas -r resumes the session" },
  ]);
  if (quit) app.quit();
}

/**
 * Ctrl-C on a running turn: the person's own stops at once; a prompt from the web in the shared
 * session is not theirs to drop by reflex (Ctrl-C twice is how many quit), so they are asked
 * first, and told when it was interrupted. Esc, a deliberate key, interrupts either at once.
 */
export async function interruptAsked(app: CommandHost, interrupt: () => void): Promise<void> {
  const web = webTurnRunning(app);
  if (web === null) {
    interrupt();
    return;
  }
  const stop = await app.pick("A prompt from the web is running in this shared session: Ctrl-C interrupts it", [
    { value: false, label: "Keep it running", description: "the web's prompt goes on" },
    { value: true, label: "Interrupt it", description: "the web hears it was interrupted" },
  ]);
  // Answered after that turn ended: a turn started since is not the one asked about.
  if (!stop || webTurnRunning(app) !== web) return;
  interrupt();
  app.transcript.line("interrupted the prompt from the web", "warn");
  app.render();
}

/** The turn id of the web's prompt running in the shared session, or null. */
function webTurnRunning(app: CommandHost): string | null {
  const { runtime } = app;
  if (!runtime.hasSession || !runtime.share) return null;
  const { turnId } = runtime.session.status();
  return turnId !== null && runtime.share.fromWeb(turnId) ? turnId : null;
}
