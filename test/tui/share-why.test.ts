/**
 * /status and the status bar say whether the session is shared with the web and, when it is not,
 * why: outside remote.roots, not trusted, no service running (no link up: test/service/share-commands).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { runLembas } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
/** Wide enough that a /status line is not wrapped. */
const open = () => suite.open([], { columns: 250 });
const remote = (lines: string) => appendFileSync(join(suite.box.configDir, "config.yaml"), `remote:\n${lines}`);

describe.skipIf(!HAVE_TMUX)("why a session is not shared", () => {
  test("outside remote.roots: the status bar says so, and /status says which roots and what to do", async () => {
    const elsewhere = join(suite.box.dir, "work");
    mkdirSync(elsewhere);
    remote(`  roots: [${elsewhere}]\n`);
    const screen = await open();
    await screen.waitFor("not shared: outside remote.roots");
    await screen.type("/status", "Enter");
    await screen.waitFor(`not shared with the web: ${suite.box.project} is outside the device's remote roots (${elsewhere}); /share shares it all the same`);
  });

  test("inside remote.roots but not trusted: lembas trust is named; trusted, with no service: the service is", async () => {
    remote(`  roots: [${suite.box.dir}]\n  require_trust: true\n`);
    const screen = await open();
    await screen.waitFor("not shared: not trusted");
    await screen.type("/status", "Enter");
    await screen.waitFor(`run lembas trust ${suite.box.project} on the device`);
    await screen.type("/quit", "Enter");
    await screen.exited();
    expect((await runLembas(suite.box, ["trust", suite.box.project], { cwd: suite.box.project })).code).toBe(0);
    const again = await open();
    await again.waitFor("not shared: no service running");
    await again.type("/status", "Enter");
    await again.waitFor("not shared with the web: no service is running: it is shared as soon as one starts (lembas serve, or lembas service install)");
  });

  test("remote.roots empty (remote work off) is said as such", async () => {
    remote("  roots: []\n");
    const screen = await open();
    await screen.waitFor("not shared: remote.roots is empty");
  });
});
