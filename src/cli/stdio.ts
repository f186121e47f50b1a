import { earlyInitializeAnswer } from "../acp/early-initialize.ts";
import { resolvePaths } from "../config/paths.ts";
import { guardStdout, lineTransport } from "../rpc/stdio.ts";
import { dialService, pumpToService } from "./stdio-service.ts";

/**
 * How long the process waits for the editor's first message before it loads the rest: initialize
 * is answered as it is read (early-initialize.ts), and loading the engine meanwhile would hold its
 * answer up; an editor that is slow to send it still finds the rest loaded.
 */
const FIRST_MESSAGE_WAIT_MS = 50;

/**
 * `lembas serve --stdio` as editors start it, straight from the entry point: it needs no argument
 * parser, and an editor waits for its initialize answer.
 */
export async function runStdio(): Promise<void> {
  try {
    await serveStdio();
  } catch (error) {
    const { report } = await import("./report.ts");
    process.exit(report(error));
  }
}

/**
 * `lembas serve --stdio`: until stdin ends (or SIGTERM, SIGHUP, SIGINT), then running turns are
 * cancelled, its commands stopped, and it exits 0. When a service of this version runs, its warm
 * engine serves the editor through the control socket (stdio-service.ts); else, or with
 * `--own-engine` or LEMBAS_STDIO_OWN_ENGINE=1, this process's own.
 */
export async function serveStdio(opts: { ownEngine?: boolean } = {}): Promise<void> {
  const write = guardStdout();
  process.on("unhandledRejection", (reason) => console.error(`lembas: unexpected error (serving goes on): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  // An editor that quits hangs up (SIGHUP) or terminates its agent: either ends it cleanly. The same
  // signal again ends it at once (the watchdog stops its commands then).
  const stop = new Promise<void>((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, () => resolve());
  });
  const paths = resolvePaths();
  const own = opts.ownEngine === true || process.env.LEMBAS_STDIO_OWN_ENGINE === "1";
  // A running service answers initialize itself, warm: dialed first, it is ready for the session/new
  // that follows at once. This process's own engine answers it as it is read, before it loads.
  const service = own ? null : await dialService(paths.socketFile, paths.configFile);
  // The service's engine parses and answers every message: this process only passes them on.
  if (service) process.exit(await pumpToService(service, Bun.stdin.stream(), write, stop));
  const transport = lineTransport(Bun.stdin.stream(), write, { answerFirst: earlyInitializeAnswer });
  await Promise.race([transport.firstRead, stop, Bun.sleep(FIRST_MESSAGE_WAIT_MS)]);
  const { serveOwnEngine } = await import("./stdio-engine.ts");
  await serveOwnEngine(transport, stop);
  process.exit(0);
}
