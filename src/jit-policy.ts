/**
 * The compiled binary starts with JavaScriptCore's tier-up thresholds scaled up (build.ts's
 * `jitPolicy`): the run-once code of a start (modules loaded, schemas built, the config read) then
 * stays in the interpreter instead of being compiled by the optimizing JITs, whose code and the
 * pages of Bun that compile it stayed resident for the life of the process (an idle service held
 * about 6 MB more, a one-shot's peak 3.5 MB: bench/START.md). Once a program is at work, the
 * normal thresholds come back, so what it does from then on (a turn's stream, a long session, the
 * picker's keystrokes) is compiled as usual: at a session's first turn (engine/session.ts), the
 * terminal's first key (tui/app.ts), the service once it serves and has warmed (service/daemon.ts),
 * and any other command 1.5 s in. An idle program's own timers (a link tried again, logins looked
 * for) then stay interpreted, as cheap as they are.
 */
import { waitMs } from "./timing.ts";

/** The scale the binary starts with: tier-up thresholds this many times the normal ones. */
export const START_JIT_POLICY = 100;

/** After this long the normal thresholds are back, for a command that does not say when it is up (a one-shot, an editor's). */
const AT_MOST_MS = 1500;

let up = false;
let latest: ReturnType<typeof setTimeout> | null = null;

/** The program is up: JavaScriptCore compiles hot code as usual from now on. Once a process; a no-op after. */
export function startedUp(): void {
  if (latest) clearTimeout(latest);
  latest = null;
  if (up) return;
  up = true;
  Bun.unsafe.setJITPolicy(1);
}

/** Says `startedUp` at the latest AT_MOST_MS from now: for every command but the service and the terminal (cli/main.ts, src/index.ts). */
export function startedUpAtTheLatest(): void {
  latest = setTimeout(startedUp, waitMs("STARTED_UP_MS", AT_MOST_MS));
  latest.unref();
}
