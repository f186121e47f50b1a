import { afterEach, beforeEach, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { MAX_ATTACHED } from "../../src/project/attach.ts";
import { type Device, linkedSession } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { personText } from "../support/model.ts";

let d: Device;
let link: Link;
let sessionId: string;
beforeEach(async () => {
  ({ d, link, sessionId } = await linkedSession());
});
afterEach(() => d.close());

const LINE_BYTES = 100;
const LINES = 680_000;

/** A ~65 MB log of numbered lines of 100 bytes each: line n starts with n, zero-padded. */
function writeBigLog(path: string): void {
  const fd = openSync(path, "w");
  const filler = "x".repeat(LINE_BYTES - 10);
  for (let from = 1; from <= LINES; from += 10_000) {
    const lines: string[] = [];
    for (let n = from; n < from + 10_000 && n <= LINES; n++) lines.push(`${String(n).padStart(8, "0")} ${filler}\n`);
    writeSync(fd, lines.join(""));
  }
  closeSync(fd);
}

/** The service's peak resident memory so far, in bytes (VmHWM). */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

const lastUser = () => {
  const messages = d.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return personText(messages.findLast((m) => m.role === "user")?.content);
};

test("thirty line ranges of a 65 MB file are streamed in bounded memory, and a prompt's attached text is capped", async () => {
  writeBigLog(join(d.project, "big.log"));
  const pid = d.service?.pid ?? 0;
  const before = peakRss(pid);

  // Thirty short ranges across the whole file: each is found, none holds the file.
  const short = Array.from({ length: 30 }, (_, i) => 1 + i * 22_000);
  d.model.push(step({ text: "ok" }));
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: short.map((n) => `@big.log#${n}-${n + 4}`).join(" ") }] }, 60_000);
  const text = lastUser();
  for (const n of short) expect(text).toContain(`${String(n).padStart(6)}\t${String(n).padStart(8, "0")} x`);
  expect(text).toContain(`lines="${short.at(-1)}-${(short.at(-1) ?? 0) + 4}"`);
  expect(peakRss(pid) - before).toBeLessThan(200 * 1024 * 1024);

  // Thirty long ranges: the prompt's attached text stops at its limit and says what was left out.
  const long = Array.from({ length: 30 }, (_, i) => 1 + i * 20_000);
  d.model.push(step({ text: "ok" }));
  const typed = long.map((n) => `@big.log#${n}-${n + 5000}`).join(" ");
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: typed }] }, 60_000);
  const capped = lastUser();
  expect(capped.length).toBeLessThan(typed.length + MAX_ATTACHED + 4096);
  expect(capped).toContain("this prompt's attachments reached their limit");
  expect(capped).toContain(`not attached, as this prompt's attachments reached their limit of ${MAX_ATTACHED} characters: @big.log#`);
  expect(peakRss(pid) - before).toBeLessThan(200 * 1024 * 1024);
}, 120_000);
