import { describe, expect, test } from "bun:test";
import { Usage } from "../../src/account/usage.ts";
import { balanceFigure, creditsText, formatCredits, formatMoney, usageLines } from "../../src/account/usage-format.ts";

/** The contract's required fields alone: no currency, credit_value, admin, *_money nor windows. */
const BARE = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  month: { from: "2026-12-01", tokens_in: 12000, tokens_out: 3400, cost: 87.25 },
  device: { tokens_in: 1500, tokens_out: 200, cost: 4.5 },
  unit: "credits",
};

const usage = (extra: Record<string, unknown> = {}) => Usage.parse({ ...BARE, ...extra });

describe("credits", () => {
  test("below 1,000 up to two decimals: 999.994 → 999.99", () => expect(formatCredits(999.994)).toBe("999.99"));
  test("no trailing zeros: 12.5 → 12.5", () => expect(formatCredits(12.5)).toBe("12.5"));
  test("a whole number stays whole: 7 → 7", () => expect(formatCredits(7)).toBe("7"));
  test("from 1,000 on, whole with thousands separators: 1000.4 → 1,000", () => expect(formatCredits(1000.4)).toBe("1,000"));
  test("what rounds up to 1,000 is shown whole: 999.996 → 1,000", () => expect(formatCredits(999.996)).toBe("1,000"));
  test("a negative figure keeps its sign: -3.456 → -3.46, and a rounded -0.001 is 0", () => {
    expect(formatCredits(-3.456)).toBe("-3.46");
    expect(formatCredits(-0.001)).toBe("0");
  });
  test("a huge figure beyond what a double holds exactly, or Infinity (1e400), is not shown", () => {
    expect(formatCredits(2 ** 53 + 2)).toBeNull();
    expect(formatCredits(Number.POSITIVE_INFINITY)).toBeNull();
    expect(formatCredits(9_007_199_254_740_991)).toBe("9,007,199,254,740,991");
  });
});

describe("money", () => {
  test("€, $ and £", () => {
    expect(formatMoney(1.23, "EUR")).toBe("€1.23");
    expect(formatMoney(1.23, "USD")).toBe("$1.23");
    expect(formatMoney(1.23, "GBP")).toBe("£1.23");
  });
  test("always two decimals, thousands separated, the sign before the symbol", () => {
    expect(formatMoney(0.5, "EUR")).toBe("€0.50");
    expect(formatMoney(1234.5, "USD")).toBe("$1,234.50");
    expect(formatMoney(-2, "GBP")).toBe("-£2.00");
  });
  test("an unknown currency shows no money", () => expect(formatMoney(1.23, "JPY")).toBeNull());
  test("*_money, when sent, is shown over credits × credit_value", () => {
    expect(creditsText(10, 3.33, usage({ currency: "EUR", credit_value: 0.01 }))).toBe("10 credits (€3.33)");
  });
  test("without *_money, the credits times credit_value", () => {
    expect(creditsText(12.5, undefined, usage({ currency: "USD", credit_value: 0.1 }))).toBe("12.5 credits ($1.25)");
  });
  test("*_money: null falls back to credits × credit_value", () => {
    expect(creditsText(20, null, usage({ currency: "GBP", credit_value: 0.05 }))).toBe("20 credits (£1.00)");
  });
  test("a currency without credit_value or *_money shows the credits alone", () => {
    expect(creditsText(20, undefined, usage({ currency: "EUR" }))).toBe("20 credits");
  });
  test("a negative credit_value shows no money", () => {
    expect(creditsText(20, undefined, usage({ currency: "EUR", credit_value: -1 }))).toBe("20 credits");
  });
  test("money too large to hold exactly is left out, the credits stay", () => {
    expect(creditsText(1e15, undefined, usage({ currency: "EUR", credit_value: 1e6 }))).toBe("1,000,000,000,000,000 credits");
  });
});

describe("the status bar's figure", () => {
  test("the balance with its money when there is a plan", () => {
    expect(balanceFigure(usage({ currency: "EUR", balance_money: 4.13 }))).toBe("412.5 credits (€4.13)");
  });
  test("plan: null shows nothing", () => expect(balanceFigure(usage({ plan: null }))).toBeNull());
  test("balance: null shows nothing", () => expect(balanceFigure(usage({ balance: null }))).toBeNull());
  test("admin: true is unlimited whatever the plan, even none", () => {
    expect(balanceFigure(usage({ admin: true }))).toBe("unlimited");
    expect(balanceFigure(usage({ admin: true, plan: null, balance: null }))).toBe("unlimited");
  });
  test("a huge balance shows nothing rather than a wrong figure", () => expect(balanceFigure(usage({ balance: 1e300 }))).toBeNull());
});

describe("the whole of it", () => {
  test("every optional field absent: credits alone, no windows", () => {
    expect(usageLines(usage())).toEqual([
      "plan Pro, 1,000 credits a month",
      "balance 412.5 credits",
      "this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits",
      "this device: 1,500 tokens in, 200 tokens out, 4.5 credits",
    ]);
  });

  test("money beside each figure, and each window's spend, limit and when it frees", () => {
    const lines = usageLines(
      usage({
        currency: "EUR",
        credit_value: 0.01,
        month: { ...BARE.month, cost_money: 0.9 },
        windows: [
          { window: "5h", limit: 50, spent: 12.5, frees_at: "2026-12-01T20:30:00Z" },
          { window: "week", limit: 500, spent: 0, frees_at: null },
        ],
      }),
      { timeZone: "UTC" },
    );
    expect(lines).toEqual([
      "plan Pro, 1,000 credits (€10.00) a month",
      "balance 412.5 credits (€4.13)",
      "this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits (€0.90)",
      "this device: 1,500 tokens in, 200 tokens out, 4.5 credits (€0.05)",
      "window 5h: 12.5 credits (€0.13) spent of 50 credits (€0.50), frees at 2026-12-01 20:30",
      "window week: 0 credits (€0.00) spent of 500 credits (€5.00)",
    ]);
  });

  test("plan: null says no plan", () => expect(usageLines(usage({ plan: null }))[0]).toBe("no plan"));
  test("balance: null says it is not reported", () => expect(usageLines(usage({ balance: null }))[1]).toBe("balance: not reported"));

  test("cost: null leaves the cost out, the tokens stay", () => {
    const lines = usageLines(usage({ month: { ...BARE.month, cost: null }, device: { ...BARE.device, cost: null } }));
    expect(lines[2]).toBe("this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out");
    expect(lines[3]).toBe("this device: 1,500 tokens in, 200 tokens out");
  });

  test("an unknown currency shows the credits alone", () => {
    expect(usageLines(usage({ currency: "XAU", credit_value: 2 }))[1]).toBe("balance 412.5 credits");
  });

  test("negative and huge numbers: a negative balance is shown as it is, negative or huge token counts are left out", () => {
    const lines = usageLines(usage({ balance: -12.345, month: { ...BARE.month, tokens_in: -5, tokens_out: 1e300, cost: 1e300 } }));
    expect(lines[1]).toBe("balance -12.35 credits");
    expect(lines[2]).toBe("this month (from 2026-12-01): nothing reported");
  });

  test("admin: unlimited, the month and the device still listed, the windows not", () => {
    const lines = usageLines(usage({ admin: true, windows: [{ window: "5h", limit: 50, spent: 1, frees_at: null }] }));
    expect(lines).toEqual([
      "unlimited: an admin account has no limit and is never refused",
      "this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits",
      "this device: 1,500 tokens in, 200 tokens out, 4.5 credits",
    ]);
  });

  test("a window whose frees_at is null or not a time says no time", () => {
    const lines = usageLines(usage({ windows: [{ window: "day", limit: 10, spent: 10, frees_at: null }, { window: "h", limit: 1, spent: 0, frees_at: "soon" }] }));
    expect(lines.slice(4)).toEqual(["window day: 10 credits spent of 10 credits", "window h: 0 credits spent of 1 credits"]);
  });

  test("control characters in the instance's names do not reach the terminal", () => {
    // The sequence goes whole (not its ESC alone, leaving "[2J"), and so does a bidi override.
    expect(usageLines(usage({ plan: { name: "Pro\u001b[2J", credits_per_month: null } }))[0]).toBe("plan Pro");
    expect(usageLines(usage({ plan: { name: "Pro \u202eexe.txt", credits_per_month: null } }))[0]).toBe("plan Pro exe.txt");
  });
});
