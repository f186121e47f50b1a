/**
 * The first run's connection form: what a server that is no model server, or hangs, or lists
 * thousands of models, leaves on the screen.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
beforeEach(() => {
  box = suite.box;
});

describe.skipIf(!HAVE_TMUX)("the first run's connection form", () => {
  let server: ReturnType<typeof Bun.serve> | null = null;
  afterEach(() => {
    server?.stop(true);
    server = null;
  });

  function bare(): void {
    writeFileSync(join(box.configDir, "config.yaml"), "# keep this comment\neffort: high\n");
  }
  async function openBare(env: Record<string, string> = {}): Promise<Screen> {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const screen = await suite.open([], { env: { LEMBAS_LOCAL_PORTS: String(port), ...env }, ready: "Add an OpenAI-compatible connection" });
    await screen.type("Down", "Enter");
    await screen.waitFor("base URL:");
    return screen;
  }

  test("a URL that answers HTML says so in one line and the form stays", async () => {
    bare();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><html><body>\n<h1>Welcome</h1>\n</body></html>", { headers: { "content-type": "text/html" } }) });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitGone("checking…");
    await Bun.sleep(300);
    expect(screen.text()).toContain("base URL:");
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);
    expect(screen.text()).not.toContain("<h1>");
  });

  test("Esc while the connection is checked: its models, when they come, do not open a picker over the menu", async () => {
    bare();
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async () => {
        await Bun.sleep(1500);
        return Response.json({ object: "list", data: [{ id: "late-model", object: "model" }] });
      },
    });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("checking…");
    await screen.type("Escape");
    await screen.waitGone("base URL:");
    await Bun.sleep(2500);
    expect(screen.text()).not.toContain("late-model");
    expect(screen.text()).toContain("Add an OpenAI-compatible connection");
  });

  test("a server that hangs: the check times out in one line and the form stays", async () => {
    bare();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: () => new Promise<Response>(() => {}) });
    // The check's bound (10 s) cut to 2 s, so that the test does not sit it out.
    const screen = await openBare({ LEMBAS_TEST_CONNECTION_CHECK_MS: "2000" });
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("checking…");
    await screen.waitFor(/did not list its models within/, 15_000);
    expect(screen.text()).toContain("base URL:");
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toBe("# keep this comment\neffort: high\n");
  });

  test("an enormous /models list: the picker opens and a model is saved", async () => {
    bare();
    const data = Array.from({ length: 20_000 }, (_, i) => ({ id: `model-${i}`, object: "model" }));
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ object: "list", data }) });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("pick one", 10_000);
    await screen.type("Enter");
    await screen.waitFor("local/model-0 · edit", 10_000);
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toMatchObject({ effort: "high", model: "local/model-0" });
  });
});
