import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import { runLembas } from "../support/run.ts";

let d: Device;
afterEach(() => d.close());

const logLines = () => readFileSync(join(d.box.stateDir, "logs", "lembas.log"), "utf8").trimEnd().split("\n");

async function waitForLine(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const line = logLines().find((l) => pattern.test(l));
    if (line) return line;
    if (Date.now() > until) throw new Error(`the log never had ${pattern}:\n${logLines().join("\n")}`);
    await Bun.sleep(50);
  }
}

test("a logout is logged as a logout, and the link is not redialled", async () => {
  d = await startDevice();
  // The service looks for logins every 5 s; every 0.3 s here, so that the test does not sit it out.
  const link = await d.serve({ env: { LEMBAS_TEST_LOGINS_EVERY_MS: "300" } });
  const out = await runLembas(d.box, ["logout", "inst"]);
  expect(out).toMatchObject({ code: 0, stdout: "logged out of inst\n" });
  const line = await waitForLine(/link inst: logged out/);
  expect(line).toMatch(/^\S+ link inst: logged out \(lembas logout\): the link is closed and not redialled$/);
  expect((await link.closed).reason).toBe("the device logged out");
  await Bun.sleep(1500);
  const after = logLines().slice(logLines().indexOf(line) + 1);
  expect(after).toEqual([]);
  expect(logLines().join("\n")).not.toContain("the service stopped");
}, 20_000);

test("while the instance is down, each redial writes exactly one line, with no runtime boilerplate", async () => {
  d = await startDevice();
  await d.serve();
  await d.instance.close();
  await waitForLine(/link inst: waiting \(closed /);
  // Backoff from 0.5 s doubling (±50 %): three redials within about 5 s.
  const redialsOf = (lines: string[]) => lines.slice(lines.findIndex((l) => / link inst: waiting \(closed /.test(l)) + 1);
  const until = Date.now() + 15_000;
  while (redialsOf(logLines()).length < 3 && Date.now() < until) await Bun.sleep(50);
  const lines = logLines();
  const redials = redialsOf(lines);
  expect(redials.length).toBeGreaterThanOrEqual(3);
  for (const line of redials) {
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z link inst: waiting \(could not reach http:\/\/127\.0\.0\.1:\d+: connection refused; redialling in \d+\.\d s\)$/);
  }
  // One line per event in the whole log, each with its time: no stack traces, no dumps.
  for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z \S/);
  expect(lines.join("\n")).not.toContain("Is the computer able");
}, 30_000);
