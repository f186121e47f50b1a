import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import { RpcError } from "../support/instance.ts";
import { runLembas, sandbox } from "../support/run.ts";

const root = process.getuid?.() === 0;
const mounted: string[] = [];
let d: Device | null = null;

afterEach(async () => {
  // The service goes first, then the mounts, so the sandbox can be removed whole.
  if (d?.service) await d.kill("SIGKILL");
  for (const dir of mounted.splice(0)) Bun.spawnSync(["umount", "-l", dir]);
  await d?.close();
  d = null;
});

function mount(args: string[]): void {
  const done = Bun.spawnSync(["mount", ...args]);
  if (done.exitCode !== 0) throw new Error(`mount ${args.join(" ")}: ${done.stderr.toString()}`);
  mounted.push(args.at(-1) ?? "");
}

/** Puts `dir` (and what it holds) on a tmpfs of `size`, so the disk can be filled. */
function onTinyDisk(dir: string, size: string): void {
  const copy = mkdtempSync(join(tmpdir(), "lembas-state-copy-"));
  cpSync(dir, copy, { recursive: true });
  mount(["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
  cpSync(copy, dir, { recursive: true });
  rmSync(copy, { recursive: true, force: true });
}

/** Writes a file in `dir` until the disk takes no more. */
function fill(dir: string): void {
  const chunk = Buffer.alloc(16 * 1024, 120);
  const file = join(dir, "filler");
  try {
    for (;;) appendFileSync(file, chunk);
  } catch {
    // full
  }
  try {
    for (;;) appendFileSync(file, "x");
  } catch {
    // to the last byte
  }
}

describe("the store's failures are sentences", () => {
  test("a corrupt lembas.db: a command says so in one line, the service too, in its log, and both exit non-zero", async () => {
    const box = sandbox();
    try {
      mkdirSync(box.stateDir, { recursive: true });
      const file = join(box.stateDir, "lembas.db");
      writeFileSync(file, "this is no SQLite database, only words ".repeat(200));
      const sentence = `lembas: the state database ${file} is not a database (corrupt?): move it aside and start again\n`;
      const list = await runLembas(box, ["sessions", "list"]);
      expect(list.stderr).toBe(sentence);
      expect(list.code).toBe(1);
      const serve = await runLembas(box, ["serve"], { timeoutMs: 10_000 });
      expect(serve.stderr).toBe(sentence);
      expect(serve.code).toBe(1);
      expect(readFileSync(join(box.stateDir, "logs", "lembas.log"), "utf8")).toContain(`cannot start: ${sentence.slice("lembas: ".length).trim()}`);
    } finally {
      box.cleanup();
    }
  }, 30_000);

  test("a file where the state directory should be: one line saying so", async () => {
    const box = sandbox();
    try {
      writeFileSync(box.stateDir, "not a directory");
      const list = await runLembas(box, ["sessions", "list"]);
      expect(list.stderr).toBe(`lembas: the state directory ${box.stateDir} is not a directory: move what is there aside\n`);
      expect(list.code).toBe(1);
    } finally {
      box.cleanup();
    }
  }, 30_000);

  test.skipIf(!root)("a read-only state directory: one line saying so, from a command and from the service", async () => {
    const box = sandbox();
    try {
      mkdirSync(box.stateDir, { recursive: true });
      mount(["--bind", box.stateDir, box.stateDir]);
      mount(["-o", "remount,bind,ro", box.stateDir]);
      const sentence = `lembas: the state directory ${box.stateDir} is read-only: make it writable, or set LEMBAS_STATE_DIR to one that is\n`;
      const list = await runLembas(box, ["sessions", "list"]);
      expect(list.stderr).toBe(sentence);
      expect(list.code).toBe(1);
      const serve = await runLembas(box, ["serve"], { timeoutMs: 10_000 });
      expect(serve.stderr).toEndWith(sentence);
      expect(serve.code).toBe(1);
    } finally {
      for (const dir of mounted.splice(0)) Bun.spawnSync(["umount", "-l", dir]);
      box.cleanup();
    }
  }, 30_000);

  test.skipIf(!root)("a full disk: a prompt is answered with the sentence, logged, and the service goes on", async () => {
    d = await startDevice();
    onTinyDisk(d.box.stateDir, "3m");
    const link = await d.serve();
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    fill(d.box.stateDir);
    const file = join(d.box.stateDir, "lembas.db");
    const sentence = `the state database ${file} is full: free some disk space`;
    const answer = await link
      .request("session/prompt", { sessionId, prompt: [{ type: "text", text: `remember this: ${"y".repeat(512 * 1024)}` }] }, 20_000)
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    expect(answer).toEqual({ error: expect.any(RpcError) });
    const error = (answer as { error: RpcError }).error;
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(sentence);
    expect(await d.waitForLog(`link inst: ${sentence}`)).toContain(`link inst: ${sentence}`);
    expect(d.service?.exitCode).toBeNull();
    // The service goes on: what needs no write is still answered.
    expect(await link.request("_lembas/session/status", { sessionId })).toMatchObject({ sessionId, exists: true });
  }, 60_000);

  test.skipIf(!root)("a full disk: SIGTERM still exits, closing the link, and says what it could not do", async () => {
    d = await startDevice();
    onTinyDisk(d.box.stateDir, "3m");
    const link = await d.serve();
    await link.request("session/new", { cwd: d.project, mcpServers: [] });
    fill(d.box.stateDir);
    const exited = await Promise.race([d.kill("SIGTERM"), Bun.sleep(15_000).then(() => "still running")]);
    expect(exited).toBe(0);
    expect((await link.closed).code).toBe(1001);
    expect(d.log()).not.toContain("unexpected error");
    expect(d.log()).toContain(`while stopping: the sessions' holds could not be let go: the state database ${join(d.box.stateDir, "lembas.db")} is full: free some disk space`);
    expect(d.log()).toContain("stopped");
  }, 60_000);
});
