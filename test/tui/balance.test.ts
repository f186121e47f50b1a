import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { fetchUsage } from "../../src/account/usage.ts";
import { BalanceWatch, type BalanceShown } from "../../src/tui/balance.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { sleep } from "../support/recorder.ts";

const BODY = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  month: { from: "2026-12-01", tokens_in: 1, tokens_out: 1, cost: 1 },
  device: { tokens_in: 1, tokens_out: 1, cost: 1 },
  unit: "credits",
  currency: "USD",
  credit_value: 0.01,
};

let instance: Instance;
beforeAll(async () => {
  instance = await startInstance({ token: "tok" });
});
afterAll(() => instance.close());
beforeEach(() => {
  instance.setUsage(BODY);
  instance.failUsage(null);
});

/** A watch over the simulated instance's login (or none), recording what it showed. */
function watch(login: "work" | null = "work", everyMs?: number) {
  const shown: BalanceShown[] = [];
  const w = new BalanceWatch({
    loginOf: async () => (login ? { name: login, url: instance.url, token: "tok" } : null),
    onChange: (s) => shown.push(s),
    read: (l) => fetchUsage(l, { timeoutMs: 300 }),
    ...(everyMs ? { everyMs } : {}),
  });
  return { w, shown, last: () => shown.at(-1) };
}

const FRESH = { text: "412.5 credits ($4.13)", stale: false };
const STALE = { text: "412.5 credits ($4.13)", stale: true };

test("the balance of the session's login, with its money", async () => {
  const { w, last } = watch();
  await w.refresh();
  expect(last()).toEqual(FRESH);
});

for (const [what, fail] of [
  ["a 500", { kind: "500" }],
  ["a timeout", { kind: "slow", slowMs: 2_000 }],
  ["a body that does not parse", { kind: "garbage" }],
] as const) {
  test(`${what} keeps the last good figure, marked stale; the next good read is fresh again`, async () => {
    const { w, last } = watch();
    await w.refresh();
    instance.failUsage(fail);
    await w.refresh();
    expect(last()).toEqual(STALE);
    instance.failUsage(null);
    await w.refresh();
    expect(last()).toEqual(FRESH);
  });
}

test("a failure with no good figure before shows nothing", async () => {
  instance.failUsage({ kind: "500" });
  const { w, last } = watch();
  await w.refresh();
  expect(last()).toBeNull();
});

test("an instance without usage (404) shows nothing", async () => {
  instance.setUsage(null);
  const { w, last } = watch();
  await w.refresh();
  expect(last()).toBeNull();
});

test("plan: null shows nothing; admin shows unlimited whatever the plan", async () => {
  const { w, last } = watch();
  instance.setUsage({ ...BODY, plan: null });
  await w.refresh();
  expect(last()).toBeNull();
  instance.setUsage({ ...BODY, plan: null, admin: true });
  await w.refresh();
  expect(last()).toEqual({ text: "unlimited", stale: false });
});

test("a model of no login shows nothing and asks no instance", async () => {
  const before = instance.usageRequests;
  const { w, last } = watch(null);
  await w.refresh();
  expect(last()).toBeNull();
  expect(instance.usageRequests).toBe(before);
});

test("once started it reads again on its own every period, and not after stop", async () => {
  const { w } = watch("work", 60);
  const before = instance.usageRequests;
  w.start();
  await sleep(400);
  w.stop();
  const seen = instance.usageRequests - before;
  expect(seen).toBeGreaterThanOrEqual(3);
  await sleep(200);
  expect(instance.usageRequests - before).toBe(seen);
});

test("refreshes asked for while one runs become one more read, not many", async () => {
  instance.failUsage({ kind: "slow", slowMs: 100 });
  const { w } = watch();
  const before = instance.usageRequests;
  const first = w.refresh();
  void w.refresh();
  void w.refresh();
  await first;
  await sleep(300);
  expect(instance.usageRequests - before).toBe(2);
});
