import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rotatingLog } from "../../src/app/logfile.ts";
import { startDevice } from "../support/device.ts";
import { LEMBAS, outputOf, runLembas, type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const line = (n: number) => `line ${String(n).padStart(3, "0")}\n`; // 9 bytes

test("the log is rotated before it passes its size; the oldest file is dropped and nothing else is lost", () => {
  const file = join(box.dir, "lembas.log");
  const append = rotatingLog(file, { maxBytes: 100, keep: 2 });
  for (let n = 1; n <= 40; n++) append(line(n));
  for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(100);
  expect(existsSync(`${file}.3`)).toBe(false);
  const kept = readFileSync(`${file}.2`, "utf8") + readFileSync(`${file}.1`, "utf8") + readFileSync(file, "utf8");
  const lines = kept.trimEnd().split("\n");
  // The newest lines, whole and in order, with no gap.
  expect(lines.at(-1)).toBe("line 040");
  const first = Number(lines[0]?.slice(5));
  expect(lines).toEqual(Array.from({ length: 40 - first + 1 }, (_, i) => line(first + i).trimEnd()));
  expect(lines.length).toBeGreaterThanOrEqual(2 * 11);
});

test("a log that is already big when the service starts is rotated at its next line; a line larger than the limit stands alone", () => {
  const file = join(box.dir, "lembas.log");
  writeFileSync(file, "x".repeat(150));
  const append = rotatingLog(file, { maxBytes: 100 });
  append(line(1));
  expect(readFileSync(`${file}.1`, "utf8")).toBe("x".repeat(150));
  expect(readFileSync(file, "utf8")).toBe(line(1));
  append(`${"y".repeat(200)}\n`);
  expect(readFileSync(file, "utf8")).toBe(`${"y".repeat(200)}\n`);
  expect(readFileSync(`${file}.1`, "utf8")).toBe(line(1));
  expect(readFileSync(`${file}.2`, "utf8")).toBe("x".repeat(150));
});

test("service logs reads across a rotation", async () => {
  const logs = join(box.stateDir, "logs");
  mkdirSync(logs, { recursive: true });
  writeFileSync(join(logs, "lembas.log.1"), Array.from({ length: 10 }, (_, i) => line(i + 1)).join(""));
  writeFileSync(join(logs, "lembas.log"), line(11) + line(12));
  const result = await runLembas(box, ["service", "logs", "-n", "5"]);
  expect(result).toMatchObject({ code: 0, stdout: [8, 9, 10, 11, 12].map(line).join("") });
  expect((await runLembas(box, ["service", "logs", "-n", "1"])).stdout).toBe(line(12));
});

test("lembas serve rotates its own log (LEMBAS_LOG_MAX_BYTES)", async () => {
  const device = await startDevice();
  try {
    await device.serve({ env: { LEMBAS_LOG_MAX_BYTES: "120" } });
    await device.kill("SIGTERM");
    const log = join(device.box.stateDir, "logs", "lembas.log");
    expect(existsSync(`${log}.1`)).toBe(true);
    for (const f of [log, `${log}.1`, `${log}.2`, `${log}.3`].filter(existsSync)) {
      const text = readFileSync(f, "utf8");
      // Each file holds whole lines, and only one line may be longer than the limit on its own.
      expect(text.endsWith("\n")).toBe(true);
      if (text.trimEnd().split("\n").length > 1) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(120);
    }
    expect(existsSync(`${log}.4`)).toBe(false);
  } finally {
    await device.close();
  }
});

test("service logs -f goes on across a rotation, with the old file's last lines", async () => {
  const logs = join(box.stateDir, "logs");
  mkdirSync(logs, { recursive: true });
  const file = join(logs, "lembas.log");
  const append = rotatingLog(file, { maxBytes: 30 });
  append(line(1));
  const proc = Bun.spawn([...LEMBAS, "service", "logs", "-f", "-n", "1"], { env: box.env, stdout: "pipe", stderr: "pipe" });
  try {
    const { waitFor, seen } = outputOf(proc.stdout);
    await waitFor(line(1));
    // Written within one look of the follower: 2 and 3 fill the file, 4 rotates it.
    for (let n = 2; n <= 6; n++) append(line(n));
    await waitFor(line(6));
    expect(seen()).toBe([1, 2, 3, 4, 5, 6].map(line).join(""));
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
  }
});

test("a log removed by hand just before a rotation starts afresh, and no later line is lost", () => {
  const file = join(box.dir, "lembas.log");
  const append = rotatingLog(file, { maxBytes: 20, keep: 2 });
  append(line(1));
  append(line(2));
  rmSync(file); // the next line would rotate a file that is gone
  for (let n = 3; n <= 7; n++) append(line(n));
  const kept = [`${file}.2`, `${file}.1`, file].filter(existsSync).map((f) => readFileSync(f, "utf8")).join("");
  expect(kept).toBe([3, 4, 5, 6, 7].map(line).join(""));
});
