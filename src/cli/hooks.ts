import { relative } from "node:path";
import { createContext } from "../app/context.ts";
import { terminalText } from "../controls.ts";
import { projectRoot } from "../engine/engine.ts";
import { hookLines } from "../engine/hook-listing.ts";
import { approveProjectHooks, PROJECT_HOOK_FILES, projectHooks } from "../engine/project-hooks.ts";
import { trustedRootOf } from "../store/trust.ts";
import { askLine } from "./ask.ts";
import { UserError } from "../errors.ts";
import { defineCommand } from "./command.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

const list = defineCommand({
  meta: {
    name: "list",
    description: "List the hooks a session here runs: config.yaml's hooks:, and this project's .agent/settings.json, .claude/settings.json and .claude/settings.local.json (and whether they run)",
    examples: ["lembas hooks list", "lembas hooks"],
  },
  args: {},
  run() {
    const ctx = createContext();
    for (const text of hookLines(ctx.config(), ctx.db(), projectRoot(process.cwd()), process.cwd())) console.log(terminalText(text));
  },
});

const approve = defineCommand({
  meta: {
    name: "approve",
    description: "Approve this trusted project's hooks (.agent/settings.json, .claude/settings.json, .claude/settings.local.json) and the project scripts they run, as they read now, after showing them and asking: a change to either asks again",
    examples: ["lembas hooks approve", "lembas hooks approve --yes"],
  },
  args: {
    yes: { type: "boolean", alias: "y", description: "approve without asking (for scripts: without a terminal it is needed)" },
  },
  async run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    const root = projectRoot(process.cwd());
    const files = projectHooks(root, db, { cwd: process.cwd() });
    if (files.length === 0) throw new UserError(`${root} has no hooks in ${PROJECT_HOOK_FILES.join(", ")}`, 2);
    if (trustedRootOf(db, root) === null) throw new UserError(`${root} is not trusted: lembas trust, then lembas hooks approve`, 2);
    for (const problem of files.flatMap((f) => f.problems)) console.error(terminalText(`lembas: ${problem}`));
    const waiting = files.filter((f) => f.state === "needs-approval");
    for (const file of files.filter((f) => f.state === "approved")) console.log(terminalText(`${file.path}'s hooks are approved already`));
    if (waiting.length === 0) return;
    for (const file of waiting) {
      console.log(terminalText(`${file.path} runs these commands:`));
      for (const spec of file.specs) console.log(terminalText(`  ${spec.event} ${spec.matcher || "*"} → ${spec.command}`));
      if (file.scripts.length > 0) console.log(terminalText(`  and these project files, as they read now: ${file.scripts.map((p) => relative(root, p)).join(", ")}`));
    }
    if (!args.yes) {
      if (!process.stdin.isTTY) throw new UserError("lembas hooks approve asks before it approves: run it at a terminal, or with --yes", 2);
      const answer = (await askLine("Approve them? They run at every session in this project. [y/N] ", new AbortController().signal)).trim().toLowerCase();
      if (answer !== "y" && answer !== "yes") {
        console.log("nothing was approved");
        return;
      }
    }
    for (const file of waiting) {
      approveProjectHooks(db, file);
      console.log(terminalText(`approved: sessions in ${root} run ${file.file}'s hooks as they read now`));
    }
  },
});

export default defineCommand({
  meta: { name: "hooks", description: DESCRIPTIONS.hooks, examples: ["lembas hooks", "lembas hooks approve"] },
  subCommands: { list, approve },
  run: () => list.run?.({ args: {} }),
});
