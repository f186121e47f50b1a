import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";

/** A tmpfs of `size` mounted at `dir` (a real file system that fills up); false when this machine refuses (not root, no mount). */
function mountSmall(dir: string, size: string): boolean {
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], { stderr: "pipe" });
  return mounted.exitCode === 0;
}
const unmount = (dir: string) => Bun.spawnSync(["umount", "-l", dir]);

/** Whether this machine lets the tests mount a tmpfs, tried once on a directory of its own. */
const canMount = (() => {
  const probe = mkdtempSync(join(tmpdir(), "lembas-mount-probe-"));
  const ok = mountSmall(probe, "16k");
  if (ok) unmount(probe);
  rmdirSync(probe);
  return ok;
})();
if (!canMount) console.warn("SKIPPED: a full disk is made with a tmpfs, and this machine does not let the tests mount one (run them as root)");

let a: StdioAgent;
let attachments: string;
beforeEach(async () => {
  a = await startStdioAgent();
  attachments = join(a.box.stateDir, "attachments");
});
afterEach(async () => {
  unmount(attachments);
  await a.close();
});

/** An image's data of `bytes` bytes, base64. */
const png = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64");

describe.skipIf(!canMount)("an upload on a full disk", () => {
  test("is a JSON-RPC error that says the disk is full, leaves no half-written file, and the next upload that fits is saved", async () => {
    mkdirSync(attachments, { recursive: true });
    expect(mountSmall(attachments, "64k")).toBe(true);
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    const error = await rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look" }, { type: "image", mimeType: "image/png", data: png(200_000) }] }));
    expect(error.code).toBe(-32603);
    expect(error.message).toStartWith("the upload image.png (200000 bytes) could not be saved in ");
    expect(error.message).toEndWith(": the disk is full; free some space and send it again");
    expect(readdirSync(attachments, { recursive: true }).filter((f) => String(f).includes("."))).toEqual([]);
    expect(a.stderr()).toContain("the disk is full");

    a.model.push(step({ text: "a small one" }));
    const next = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "this one" }, { type: "image", mimeType: "image/png", data: png(20_000) }] });
    expect(next.stopReason).toBe("end_turn");
    expect(readdirSync(join(attachments, sessionId))).toEqual([expect.stringMatching(/^\d+-[0-9a-f]{8}-image\.png$/)]);
  });
});
