import type { CommandHost } from "./command-host.ts";

/**
 * Quitting as the person asks it (Ctrl-C twice, Ctrl-D, /quit): while a prompt from the web runs
 * in the shared session, they are asked first, since quitting interrupts it (the sharing design);
 * otherwise it quits at once. Signals and a hang-up quit without asking.
 */
export async function quitAsked(app: CommandHost): Promise<void> {
  if (!webTurnRunning(app)) {
    app.quit();
    return;
  }
  const quit = await app.pick("A prompt from the web is running in this shared session: quitting interrupts it", [
    { value: false, label: "Keep it running", description: "stay in the session" },
    { value: true, label: "Quit and interrupt it", description: "the web hears it was interrupted; lembas -r resumes the session" },
  ]);
  if (quit) app.quit();
}

function webTurnRunning(app: CommandHost): boolean {
  const { runtime } = app;
  if (!runtime.hasSession || !runtime.share) return false;
  const { turnId } = runtime.session.status();
  return turnId !== null && runtime.share.fromWeb(turnId);
}
