import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { killSleeps, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { bwrapSandbox } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the tests of what a sandboxed command leaves when it ends");

/**
 * Shuts down the sandbox's stderr, which bwrap's PID 1 holds until the sandbox is empty: taken
 * from PID 1 with pidfd_getfd (434: pidfd_open, 438: pidfd_getfd, on every architecture), as the
 * same user may.
 */
const SHUT_PID1_STDERR = `perl -e 'my $p = syscall(434, 1, 0); my $fd = syscall(438, $p, 2, 0); open(my $s, "+<&=", $fd) or die "no fd: $!"; shutdown($s, 2) or die "shutdown: $!"'`;

describe.skipIf(!bwrap)("what a command in the bwrap sandbox leaves when it ends", () => {
  test("attack: a daemon whose command shut the sandbox's stderr down early (as if the sandbox were empty) is stopped with the call", async () => {
    const dir = tempDir();
    const root = join(dir, "project");
    const state = join(dir, "state");
    mkdirSync(root);
    mkdirSync(state);
    const { ctx } = makeContext({ root, hidden: [state] });
    const marker = uniqueSleep();
    try {
      const result = await run(bashTool, { command: `(setsid env -i sleep ${marker} </dev/null >/dev/null 2>&1 &); ${SHUT_PID1_STDERR}; echo done` }, ctx);
      expect(result.output).toStartWith("done");
      expect(await waitUntil(() => sleepsWith(marker).length === 0, 3_000)).toBe(true);
    } finally {
      killSleeps(marker);
    }
  });
});
