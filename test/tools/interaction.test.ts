import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { askUserTool } from "../../src/tools/ask-user.ts";
import { planSubmitTool, slugify } from "../../src/tools/plan-submit.ts";
import { settingsTool } from "../../src/tools/settings.ts";
import { todoTool } from "../../src/tools/todo.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

describe("todo", () => {
  test("sets the session's todos and shows the list back", async () => {
    const { ctx, rec } = makeContext();
    const todos = [
      { content: "Read the config", status: "completed" as const },
      { content: "Write the loader", status: "in_progress" as const, priority: "high" as const },
      { content: "Test it", status: "pending" as const },
    ];
    const result = await run(todoTool, { todos }, ctx);
    expect(rec.todos).toEqual([todos]);
    expect(result.output).toBe("Task list (1 of 3 completed):\n[x] Read the config\n[~] Write the loader (high)\n[ ] Test it");
    expect(todoTool.title({ todos }, ctx)).toBe("Update the task list (1/3 done)");
  });
});

describe("ask_user", () => {
  const longLabel = `Use the ${"very ".repeat(60)}long option`;
  const input = {
    questions: [
      {
        header: "Database",
        question: "Which database?",
        multiple: false,
        options: [{ label: "SQLite" }, { label: "Postgres", description: "a server", recommended: true }, { label: longLabel }],
      },
      { header: "Tests", question: "Which tests?", multiple: true, options: [{ label: "unit" }, { label: "e2e" }] },
    ],
    why: "to pick the driver",
  };

  test("moves the recommended option first before asking", async () => {
    const { ctx, rec } = makeContext({ ask: () => ({ outcome: "dismissed" }) });
    await run(askUserTool, input, ctx);
    const asked = rec.asked[0];
    expect(asked?.why).toBe("to pick the driver");
    expect(asked?.questions[0]?.options.map((o) => o.label)).toEqual(["Postgres", "SQLite", longLabel]);
    expect(asked?.questions[0]?.options[0]).toEqual({ label: "Postgres", description: "a server", recommended: true });
  });

  test("maps a label cut at 240 characters back to the whole label", async () => {
    const cut = `${longLabel.slice(0, 240)}…`;
    const { ctx } = makeContext({
      ask: () => ({
        outcome: "answered",
        answers: [
          { kind: "options", labels: [cut] },
          { kind: "options", labels: ["unit", "e2e"] },
        ],
      }),
    });
    const result = await run(askUserTool, input, ctx);
    expect(result.output).toBe(`The person answered:\n\nDatabase (Which database?)\n→ ${longLabel}\n\nTests (Which tests?)\n→ unit, e2e`);
  });

  test("custom text, a question back and a skipped question", async () => {
    const { ctx } = makeContext({
      ask: () => ({ outcome: "answered", answers: [{ kind: "back", text: "what is the difference?" }, { kind: "skipped" }] }),
    });
    const result = await run(askUserTool, input, ctx);
    expect(result.output).toContain("→ the person asks you: what is the difference?; answer them, then ask again");
    expect(result.output).toContain("Tests (Which tests?)\n→ no answer");
    const custom = makeContext({ ask: () => ({ outcome: "answered", answers: [{ kind: "custom", text: "DuckDB" }] }) });
    expect((await run(askUserTool, input, custom.ctx)).output).toContain("→ in their own words: DuckDB");
  });

  test("dismissed and nobody", async () => {
    const dismissed = makeContext({ ask: () => ({ outcome: "dismissed" }) });
    expect((await run(askUserTool, input, dismissed.ctx)).output).toStartWith("The person dismissed the questions");
    const nobody = makeContext();
    expect((await run(askUserTool, input, nobody.ctx)).output).toBe(
      "Nobody can be asked in this session: proceed with your best judgement and say what you assumed.",
    );
  });

  test("a question that advises more than one option is sent back unasked, saying which (what the description no longer says)", async () => {
    const { ctx, rec } = makeContext({ ask: () => ({ outcome: "dismissed" }) });
    const twice = {
      questions: [
        { header: "Tests", question: "Which tests?", options: [{ label: "unit" }] },
        { header: "Database", question: "Which database?", options: [{ label: "SQLite", recommended: true }, { label: "Postgres", recommended: true }] },
      ],
    };
    const result = await run(askUserTool, twice, ctx);
    expect(result).toMatchObject({ isError: true, output: 'Question 2 ("Database") marks 2 options recommended: mark only the one you advise, or none, and ask again.' });
    expect(rec.asked).toHaveLength(0);
  });

  test("the schema takes 1 to 4 questions of 1 to 6 options", () => {
    const option = { label: "a" };
    const question = { header: "H", question: "Q?", multiple: false, options: [option] };
    expect(askUserTool.schema.safeParse({ questions: [] }).success).toBe(false);
    expect(askUserTool.schema.safeParse({ questions: Array(5).fill(question) }).success).toBe(false);
    expect(askUserTool.schema.safeParse({ questions: [{ ...question, options: Array(7).fill(option) }] }).success).toBe(false);
    expect(askUserTool.schema.safeParse({ questions: [question] }).success).toBe(true);
  });
});

describe("plan_submit", () => {
  const plan = "# Add a cache\n\n1. Change `src/a.ts`.\n";

  test("saves the plan under .agent/plans and says it was approved", async () => {
    const { ctx, rec } = makeContext({ plan: { outcome: "approve", mode: "edit" } });
    const result = await run(planSubmitTool, { plan }, ctx);
    const rel = rec.plans[0]?.path ?? "";
    expect(rel).toMatch(/^\.agent\/plans\/\d{4}-\d{2}-\d{2}-add-a-cache\.md$/);
    expect(readFileSync(join(ctx.root, rel), "utf8")).toBe(plan);
    expect(rec.plans[0]?.text).toBe(plan);
    expect(rec.beforeChange).toEqual([join(ctx.root, rel)]);
    expect(result.output).toBe(`The plan (${rel}) was approved; the session is now in edit mode: carry out the plan.`);
  });

  test("a second plan of the same name gets its own file", async () => {
    const { ctx, rec } = makeContext({ plan: { outcome: "revise", feedback: "Also cover the tests." } });
    await run(planSubmitTool, { plan, title: "Cache" }, ctx);
    const result = await run(planSubmitTool, { plan, title: "Cache" }, ctx);
    expect(rec.plans[1]?.path).toMatch(/-cache-2\.md$/);
    expect(result.output).toBe("The person wants changes to the plan:\n\nAlso cover the tests.\n\nRevise the plan and submit it again.");
  });

  test("dismissed and nobody", async () => {
    const dismissed = makeContext({ plan: { outcome: "dismissed" } });
    expect((await run(planSubmitTool, { plan }, dismissed.ctx)).output).toBe("The person dismissed the plan: stop and wait.");
    const nobody = makeContext();
    const result = await run(planSubmitTool, { plan }, nobody.ctx);
    expect(result.output).toMatch(/^The plan is saved at \.agent\/plans\/.+\.md; nobody can approve it here: stop now and tell the person where it is\.$/);
  });

  test("slugs are lower-case ASCII words joined by dashes", () => {
    expect(slugify("Café: refactor the  Loader!")).toBe("cafe-refactor-the-loader");
    expect(slugify("???")).toBe("plan");
  });
});

describe("settings", () => {
  test("get shows the settings and the models", async () => {
    const { ctx } = makeContext();
    const result = await run(settingsTool, { action: "get" }, ctx);
    expect(result.output).toBe("model: local/a\neffort: medium\nmode: edit\n\nModels that can be chosen:\n- local/a\n- local/b");
  });

  test("set changes through ctx.settings and says what was set", async () => {
    const { ctx, rec } = makeContext();
    const result = await run(settingsTool, { action: "set", mode: "plan", effort: "high" }, ctx);
    expect(rec.settingsSet).toEqual([{ effort: "high", mode: "plan" }]);
    expect(result.output).toBe("Set effort to high, mode to plan.");
    expect(settingsTool.title({ action: "set", mode: "plan" }, ctx)).toBe("Change the settings: mode plan");
  });

  test("set with nothing, or a value refused, is an error", async () => {
    const { ctx } = makeContext();
    expect(await run(settingsTool, { action: "set" }, ctx)).toMatchObject({ isError: true });
    const refused = await run(settingsTool, { action: "set", model: "nope/x" }, ctx);
    expect(refused).toMatchObject({ isError: true, output: "The settings were not changed: nope/x is not a known model" });
  });
});
