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

export type ScreenOptions = { columns?: number; rows?: number; env?: Record<string, string> };

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
      const screen = await openScreen(sandbox, { args, cwd: sandbox.project, ...opts });
      screens.push(screen);
      if (defaults.ready) await screen.waitFor(defaults.ready);
      return screen;
    },
  };
}
