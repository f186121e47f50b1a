/**
 * One terminal-UI test file's surroundings: before each test a scripted model and a project
 * sandbox whose config points at it; after each, every screen opened closed, the model stopped and
 * the sandbox removed.
 *
 * ```ts
 * const suite = screenSuite({ ready: "test/test-model" });
 * test("…", async () => {
 *   suite.model.push(step({ text: "hi" }));
 *   const screen = await suite.open();
 * });
 * ```
 */
import { afterEach, beforeEach } from "bun:test";
import { type ScriptedModel, startModel } from "./model.ts";
import { projectSandbox, type Sandbox } from "./run.ts";
import { openScreen, type Screen } from "./tmux.ts";

/** `ready` overrides the suite's: what to wait for before the screen is handed over; `source`: `bun src/index.ts` even when the run has a binary. */
export type ScreenOptions = { columns?: number; rows?: number; env?: Record<string, string>; ready?: string; source?: boolean };

/** The status bar's word on sharing ("shared · inst", "not shared: …"): there once the session is open. */
export const SESSION_OPEN = /(?:^|[\s·])(?:not )?shared\b/m;

export type ScreenSuite = {
  readonly box: Sandbox & { project: string };
  readonly model: ScriptedModel;
  /** `lembas ARGS` in the project, waited on until it shows `ready` (when the suite has one). */
  open(args?: string[], opts?: ScreenOptions): Promise<Screen>;
};

export function screenSuite(defaults: { ready?: string } = {}): ScreenSuite {
  let box: (Sandbox & { project: string }) | null = null;
  let model: ScriptedModel | null = null;
  const screens: Screen[] = [];
  beforeEach(async () => {
    model = await startModel();
    box = projectSandbox(model.url);
  });
  afterEach(async () => {
    for (const screen of screens.splice(0)) await screen.close();
    await model?.close();
    box?.cleanup();
  });
  const need = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`${what} is made before each test: use it inside one`);
    return value;
  };
  return {
    get box() {
      return need(box, "the sandbox");
    },
    get model() {
      return need(model, "the scripted model");
    },
    async open(args = [], opts = {}) {
      const sandbox = need(box, "the sandbox");
      const { ready = defaults.ready, ...rest } = opts;
      const screen = await openScreen(sandbox, { args, cwd: sandbox.project, ...rest });
      screens.push(screen);
      if (!ready) return screen;
      await screen.waitFor(ready);
      // The first frame shows the model before the session is made; the status bar says whether it
      // is shared only once it is open, and a test may look in the store from then on.
      if (ready === defaults.ready) await screen.waitFor(SESSION_OPEN);
      return screen;
    },
  };
}

/** What the model was given back for its tool calls, in the last turn step it was asked for. */
export function toolResults(model: ScriptedModel): string {
  const last = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0).at(-1);
  const results = (last?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
  return results.join("\n---\n");
}

/** The digit a card shows before a row's label. */
export function digitOf(screen: Screen, label: string): string {
  const digit = new RegExp(`(\\d)\\. (?:\\[[ x]\\] )?${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`).exec(screen.text())?.[1];
  if (!digit) throw new Error(`no row "${label}" on the screen:\n${screen.text()}`);
  return digit;
}
