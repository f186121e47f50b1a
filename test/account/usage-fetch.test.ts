import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { fetchUsage } from "../../src/account/usage.ts";
import { type Instance, startInstance } from "../support/instance.ts";

const BODY = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  month: { from: "2026-12-01", tokens_in: 12000, tokens_out: 3400, cost: 87.25 },
  device: { tokens_in: 1500, tokens_out: 200, cost: 4.5 },
  unit: "credits",
};

let instance: Instance;
const login = () => ({ url: instance.url, token: "device-token" });

beforeAll(async () => {
  instance = await startInstance({ token: "device-token" });
});
afterAll(() => instance.close());
beforeEach(() => {
  instance.setUsage(BODY);
  instance.failUsage(null);
});

test("the usage is read with the device token, and parsed", async () => {
  const before = instance.usageRequests;
  const read = await fetchUsage(login());
  expect(read).toEqual({ kind: "usage", usage: BODY });
  expect(instance.usageRequests).toBe(before + 1);
});

test("a wrong device token is a failure that says to log in again, and does not say the token", async () => {
  const read = await fetchUsage({ url: instance.url, token: "wrong-token" });
  expect(read).toEqual({ kind: "failed", why: "it refused the device token (401): log in again" });
});

test("an instance without the endpoint (404) is absent, not a failure", async () => {
  instance.setUsage(null);
  expect(await fetchUsage(login())).toEqual({ kind: "absent" });
});

test("a 500 is a failure with its status", async () => {
  instance.failUsage({ kind: "500" });
  expect(await fetchUsage(login())).toEqual({ kind: "failed", why: "it answered 500" });
});

test("an answer that is not JSON is a failure", async () => {
  instance.failUsage({ kind: "garbage" });
  expect(await fetchUsage(login())).toEqual({ kind: "failed", why: "its answer is not JSON" });
});

test("an answer slower than the timeout is a failure saying so", async () => {
  // Unbounded, the read would get the answer after 2 s and return the usage instead.
  instance.failUsage({ kind: "slow", slowMs: 2_000 });
  expect(await fetchUsage(login(), { timeoutMs: 200 })).toEqual({ kind: "failed", why: "it did not answer within 200 ms" });
});

test("the timeout is 5 s unless told", async () => {
  instance.failUsage({ kind: "slow", slowMs: 5_600 });
  expect(await fetchUsage(login())).toEqual({ kind: "failed", why: "it did not answer within 5 s" });
}, 10_000);

test("the instance down is a failure saying it could not be reached", async () => {
  const gone = await startInstance({ token: "t" });
  const url = gone.url;
  await gone.close();
  const read = await fetchUsage({ url, token: "t" });
  expect(read.kind).toBe("failed");
  if (read.kind === "failed") expect(read.why).toStartWith("it could not be reached: ");
});

test("JSON that is not usage (a required field of the wrong type) is a failure naming the field", async () => {
  instance.setUsage({ ...BODY, balance: "lots" });
  expect(await fetchUsage(login())).toEqual({ kind: "failed", why: "its answer does not read as usage (balance: not a number)" });
});

test("plan: null, balance: null and cost: null parse", async () => {
  const body = { ...BODY, plan: null, balance: null, month: { ...BODY.month, cost: null }, device: { ...BODY.device, cost: null } };
  instance.setUsage(body);
  expect(await fetchUsage(login())).toEqual({ kind: "usage", usage: body });
});

test("an optional field of the wrong type reads as not sent; the rest is kept", async () => {
  instance.setUsage({ ...BODY, currency: 42, admin: "yes", credit_value: "0.01", windows: "none" });
  expect(await fetchUsage(login())).toEqual({ kind: "usage", usage: BODY });
});

test("windows with frees_at: null parse", async () => {
  const windows = [{ window: "5h", limit: 50, spent: 12.5, frees_at: null }];
  instance.setUsage({ ...BODY, windows });
  const read = await fetchUsage(login());
  expect(read.kind === "usage" && read.usage.windows).toEqual(windows);
});
