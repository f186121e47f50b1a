import { mkdir, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { writeAtomic } from "./atomic.ts";
import description from "./plan-submit.txt" with { type: "text" };
import { fail, fsErrorMessage, ok } from "./result.ts";
import { defineTool, type PlanOutcome } from "./tool.ts";
import { isInside } from "../paths.ts";
import { excludeOnce } from "../project/git-exclude.ts";

export const PLANS_DIR = ".agent/plans";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    plan: z.string().min(1).describe("Markdown"),
    title: z.string().optional().describe("Names the file; default the first heading"),
  });

/** plan_submit: saves the plan under .agent/plans and asks the person to approve it. */
export const planSubmitTool = defineTool({
  name: "plan_submit",
  description,
  brief: "Plan mode: submits your plan (Markdown: the files to change, the steps, how to check) for the person's approval.",
  schema,
  permission: "none",
  needs: ["changes", "people"],
  kind: "switch_mode",
  title: (input) => `Submit the plan: ${planTitle(input.plan, input.title)}`,
  // The plan file is the tool's own, written even in plan mode: no permission to check.
  paths: () => [],
  async execute(input, ctx) {
    let rel: string;
    try {
      rel = await freePlanPath(ctx.root, planTitle(input.plan, input.title), new Date());
      const abs = join(ctx.root, rel);
      // The tool writes without asking: only where the plan really stays inside the project.
      const dir = dirname(abs);
      await mkdir(dir, { recursive: true });
      const realDir = await realpath(dir);
      if (!isInside(realDir, await realpath(ctx.root))) return fail(`${PLANS_DIR} leads outside the project (${realDir}): the plan was not saved`);
      await ctx.changes.before(abs);
      await mkdir(dirname(abs), { recursive: true });
      await writeAtomic(abs, input.plan.endsWith("\n") ? input.plan : `${input.plan}\n`);
      ctx.changes.after(abs);
      // Plans are the session's notes, not the person's work: git status stays clean of them.
      await excludeOnce(ctx.root, `${PLANS_DIR}/`).catch(() => null);
    } catch (error) {
      return fail(`The plan could not be saved: ${fsErrorMessage(error, PLANS_DIR)}`);
    }
    const outcome = await ctx.people.submitPlan(rel, input.plan);
    return ok(formatPlanOutcome(outcome, rel), { meta: { path: rel, outcome: outcome.outcome } });
  },
});

/** What the model is told of the person's decision. */
export function formatPlanOutcome(outcome: PlanOutcome, rel: string): string {
  switch (outcome.outcome) {
    case "approve":
      return `The plan (${rel}) was approved; the session is now in ${outcome.mode} mode: carry out the plan.`;
    case "revise":
      return `The person wants changes to the plan:\n\n${outcome.feedback}\n\nRevise the plan and submit it again.`;
    case "dismissed":
      return "The person dismissed the plan: stop and wait.";
    case "nobody":
      return `The plan is saved at ${rel}; nobody can approve it here: stop now and tell the person where it is.`;
  }
}

/** The title given, else the plan's first Markdown heading, else "plan". */
export function planTitle(plan: string, title?: string): string {
  const given = title?.trim();
  if (given) return given;
  const heading = plan.match(/^#{1,6}\s+(.+?)\s*#*\s*$/m)?.[1];
  return heading?.trim() || "plan";
}

/** `.agent/plans/<yyyy-mm-dd>-<slug>.md`, with `-2`, `-3`… when the name is taken. */
async function freePlanPath(root: string, title: string, now: Date): Promise<string> {
  const stem = `${PLANS_DIR}/${localDate(now)}-${slugify(title)}`;
  for (let n = 1; ; n++) {
    const rel = n === 1 ? `${stem}.md` : `${stem}-${n}.md`;
    if (!(await stat(join(root, rel)).catch(() => null))) return rel;
  }
}

/** Lower case letters and digits joined by single dashes, at most 60 characters. */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 60)
    .replace(/^-+|-+$/g, "");
  return slug || "plan";
}

function localDate(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
