import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

const TOKEN = "device-token-0123456789";
const FULL = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  balance_money: 4.13,
  month: { from: "2026-12-01", tokens_in: 12000, tokens_out: 3400, cost: 87.25 },
  device: { tokens_in: 1500, tokens_out: 200, cost: 4.5, cost_money: 0.05 },
  unit: "credits",
  currency: "EUR",
  credit_value: 0.01,
  windows: [
    { window: "5h", limit: 50, spent: 12.5, frees_at: "2026-12-01T20:30:00Z" },
    { window: "week", limit: 500, spent: 0, frees_at: null },
  ],
};

let instance: Instance;
let box: Sandbox;

beforeAll(async () => {
  instance = await startInstance({ token: TOKEN });
});
afterAll(() => instance.close());
beforeEach(() => {
  box = sandbox();
  instance.setUsage(FULL);
  instance.failUsage(null);
  login("work", instance.url, TOKEN);
});
afterEach(() => box.cleanup());

function login(name: string, url: string, token: string): void {
  const db = openDb(join(box.stateDir, "lembas.db"));
  saveLogin(db, { name, url, token, protocols: [1, 2] });
  db.close();
}

const usage = (args: string[] = []) => runLembas(box, ["usage", ...args], { env: { TZ: "UTC" } });
const label = () => `work (${instance.url})`;

describe("lembas usage", () => {
  test("prints each login's plan, balance, month, device and windows, money beside each figure", async () => {
    const result = await usage();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        label(),
        "  plan Pro, 1,000 credits (€10.00) a month",
        "  balance 412.5 credits (€4.13)",
        "  this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits (€0.87)",
        "  this device: 1,500 tokens in, 200 tokens out, 4.5 credits (€0.05)",
        "  window 5h: 12.5 credits (€0.13) spent of 50 credits (€0.50), frees at 2026-12-01 20:30",
        "  window week: 0 credits (€0.00) spent of 500 credits (€5.00)",
        "",
      ].join("\n"),
    );
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  test("thousands of windows: the first 20 printed, the rest counted in one line", async () => {
    const windows = Array.from({ length: 5000 }, (_, i) => ({ window: `w${i}`, limit: 10, spent: 1, frees_at: null }));
    instance.setUsage({ ...FULL, windows });
    const result = await usage();
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("  window "))).toHaveLength(20);
    expect(lines.at(-2)).toStartWith("  window w19: ");
    expect(lines.at(-1)).toBe("  … and 4,980 more windows not shown (lembas usage --json lists them all)");
    // --json is the answer whole.
    const json = JSON.parse((await usage(["--login", "work", "--json"])).stdout) as { windows: unknown[] };
    expect(json.windows).toHaveLength(5000);
  });

  test("a plan or window name carrying terminal control prints as text: no escape, no bidi override", async () => {
    instance.setUsage({ ...FULL, plan: { name: "Pro\x1b]0;owned\x07\u202egnp.exe", credits_per_month: 1000 }, windows: [{ window: "5h\x1b[2J\u2066", limit: 50, spent: 1, frees_at: null }] });
    const result = await usage();
    expect(result.stdout).toContain("  plan Prognp.exe, 1,000 credits");
    expect(result.stdout).toContain("  window 5h: 1 credits");
    expect(result.stdout).not.toMatch(/[\x1b\x07\u202e\u2066]/);
    const doctor = await runLembas(box, ["doctor"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
    expect(doctor.stdout).toContain(`login ${label()}: usage available (plan Prognp.exe; lembas usage shows it)`);
    expect(doctor.stdout).not.toMatch(/[\x1b\x07\u202e\u2066]/);
  });

  test("admin: unlimited, with the month and the device, without windows", async () => {
    instance.setUsage({ ...FULL, admin: true });
    const result = await usage();
    expect(result.stdout.split("\n").slice(1, -1)).toEqual([
      "  unlimited: an admin account has no limit and is never refused",
      "  this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits (€0.87)",
      "  this device: 1,500 tokens in, 200 tokens out, 4.5 credits (€0.05)",
    ]);
  });

  test("--json with --login prints the parsed object", async () => {
    instance.setUsage({ ...FULL, admin: "not a boolean" });
    const result = await usage(["--login", "work", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(FULL);
  });

  test("--json without --login prints the parsed objects by login, null where the instance does not report usage", async () => {
    const other = await startInstance({ token: "other" });
    try {
      login("home", other.url, "other");
      const result = await usage(["--json"]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ work: FULL, home: null });
    } finally {
      await other.close();
    }
  });

  test("an instance without the endpoint (404) is one sentence, and no failure", async () => {
    instance.setUsage(null);
    const result = await usage();
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${label()} does not report usage\n`);
  });

  for (const [what, fail, why] of [
    ["a 500", { kind: "500" }, "it answered 500"],
    ["a body that is not JSON", { kind: "garbage" }, "its answer is not JSON"],
  ] as const) {
    test(`${what} is one line on stderr and exit 1`, async () => {
      instance.failUsage(fail);
      const result = await usage();
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`the usage of ${label()} could not be read: ${why}\n`);
    });
  }

  test("the instance down is one line on stderr and exit 1; the other login is still printed", async () => {
    const gone = await startInstance({ token: "t" });
    const url = gone.url;
    await gone.close();
    login("gone", url, "t");
    const result = await usage();
    expect(result.code).toBe(1);
    expect(result.stdout).toStartWith(`${label()}\n  plan Pro`);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toStartWith(`the usage of gone (${url}) could not be read: it could not be reached: `);
  });

  test("--login with a name that is no login says which there are (exit 2)", async () => {
    const result = await usage(["--login", "nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("lembas: there is no login nope (the logins: work)\n");
  });

  test("with no login it says how to make one (exit 1)", async () => {
    const bare = sandbox();
    try {
      const result = await runLembas(bare, ["usage"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("lembas: no logins: lembas login URL links this device to an instance\n");
    } finally {
      bare.cleanup();
    }
  });

  test("--help has an example", async () => {
    const result = await usage(["--help"]);
    expect(result.stdout).toStartWith("Usage: lembas usage [options]");
    expect(result.stdout).toContain("lembas usage --login work --json");
  });
});

describe("lembas status and lembas doctor", () => {
  test("status gives the login's balance line", async () => {
    const result = await runLembas(box, ["status"]);
    expect(result.stdout.split("\n").slice(0, 2)).toEqual([`work  ${instance.url}  no link (the service is not running)`, "  balance 412.5 credits (€4.13)"]);
  });

  test("status: admin is unlimited, no plan says so, 404 says the instance does not report it, a 500 says why", async () => {
    const line = async () => (await runLembas(box, ["status"])).stdout.split("\n")[1];
    instance.setUsage({ ...FULL, admin: true });
    expect(await line()).toBe("  balance unlimited");
    instance.setUsage({ ...FULL, plan: null });
    expect(await line()).toBe("  balance: none (no plan)");
    instance.setUsage(null);
    expect(await line()).toBe("  balance: the instance does not report usage");
    instance.failUsage({ kind: "500" });
    expect(await line()).toBe("  balance: could not be read (it answered 500)");
  });

  test("doctor says whether usage is available for each login", async () => {
    const other = await startInstance({ token: "other" });
    try {
      login("home", other.url, "other");
      const result = await runLembas(box, ["doctor"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
      expect(result.stdout).toContain(`ok   login ${label()}: usage available (plan Pro; lembas usage shows it)\n`);
      expect(result.stdout).toContain(`ok   login home (${other.url}): usage not available (the instance does not report it)\n`);
      instance.failUsage({ kind: "500" });
      const failing = await runLembas(box, ["doctor"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
      expect(failing.stdout).toContain(`fix  login ${label()}: usage could not be read: it answered 500 — check your network, and that ${instance.url} is up\n`);
      expect(failing.stdout).not.toContain(TOKEN);
    } finally {
      await other.close();
    }
  });
});
