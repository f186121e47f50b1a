import { afterEach, expect, test } from "bun:test";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";

let d: Device;
afterEach(() => d.close());

const CAP = 1024 * 1024;

test("a message from the instance over the cap is not read: the link is closed with 1009, the service logs a sentence, stays up and redials", async () => {
  d = await startDevice();
  const link = await d.serve({ env: { LEMBAS_LINK_MAX_MESSAGE_BYTES: String(CAP) } });
  const pad = "x".repeat(2 * CAP);
  const frame = JSON.stringify({ jsonrpc: "2.0", id: "big", method: "_lembas/directories", params: { pad } });
  link.sendRaw(frame);
  const closed = await Promise.race([link.closed, Bun.sleep(5000).then(() => null)]);
  expect(closed?.code).toBe(1009);
  expect(link.messages.some((m) => m.id === "big")).toBe(false);
  expect(d.log()).toContain(`link inst: the instance sent a message of ${frame.length} bytes, more than the ${CAP} a message may be`);

  const next = await d.instance.waitForLink(10_000);
  await next.hello;
  expect(await next.request("initialize", LEMBAS_INIT)).toMatchObject({ protocolVersion: 1 });
  expect(d.service?.exitCode).toBeNull();
  // A message under the cap is read as ever.
  expect(await next.request("_lembas/directories", { pad: "x".repeat(CAP / 2) })).toMatchObject({ path: "" });
}, 30_000);
