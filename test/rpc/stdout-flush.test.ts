/**
 * When serve --stdio's messages leave (src/rpc/stdio.ts, guardStdout): a notification that starts a
 * burst leaves at once, the rest of the burst with the next turn of the event loop. Before, every
 * notification waited for that turn: a model's answer read in one piece (a short reply, or a fast
 * stream) had its first chunk held until the whole turn was over, its commits and its hooks looked
 * up, as the next turn of the loop came only then. The order of bytes on the pipe says which came
 * first: the writer's message, or what the process writes straight to fd 1 right after.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "lembas-stdout-flush-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` in a process whose stdout is guarded as serve --stdio's is; returns its stdout's lines. */
async function linesOf(body: string): Promise<string[]> {
  const script = join(dir, `probe-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(script, `import { writeSync } from "node:fs";\nimport { guardStdout } from ${JSON.stringify(join(import.meta.dir, "../../src/rpc/stdio.ts"))};\nconst write = guardStdout();\nconst mark = (text: string) => writeSync(1, text + "\\n");\n${body}\n`);
  const proc = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  return out.trim().split("\n");
}

test("the first notification after a quiet spell reaches the pipe before the work that follows it in the same turn of the loop", async () => {
  const lines = await linesOf(`
void write('{"n":1}\\n', false);
mark("after the first");
void write('{"n":2}\\n', false);
void write('{"n":3}\\n', false);
mark("after the burst");
await new Promise((resolve) => setImmediate(resolve));
await new Promise((resolve) => setImmediate(resolve));
mark("next turn");
void write('{"n":4}\\n', false);
mark("after the fourth");
`);
  // The rest of a burst still leaves together, with the next turn of the loop.
  expect(lines).toEqual(['{"n":1}', "after the first", "after the burst", '{"n":2}', '{"n":3}', "next turn", '{"n":4}', "after the fourth"]);
});

test("an answer leaves at once with what is before it, as before", async () => {
  const lines = await linesOf(`
void write('{"n":1}\\n', false);
void write('{"n":2}\\n', false);
void write('{"id":1,"result":{}}\\n', true);
mark("after the answer");
`);
  expect(lines).toEqual(['{"n":1}', '{"n":2}', '{"id":1,"result":{}}', "after the answer"]);
});
