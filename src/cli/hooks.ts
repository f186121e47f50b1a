import { createContext } from "../app/context.ts";
import { terminalText } from "../controls.ts";
import { projectRoot } from "../engine/engine.ts";
import { hookLines } from "../engine/hook-listing.ts";
import { approveProjectHooks, projectHooks } from "../engine/project-hooks.ts";
import { UserError } from "../errors.ts";
import { defineCommand } from "./command.ts";

const list = defineCommand({
  meta: {
    name: "list",
    description: "List the hooks a session here runs: config.yaml's hooks:, and this project's .agent/settings.json and .claude/settings.json (and whether they run)",
    examples: ["lembas hooks list", "lembas hooks"],
  },
  args: {},
  run() {
    const ctx = createContext();
    for (const text of hookLines(ctx.config(), ctx.db(), projectRoot(process.cwd()))) console.log(terminalText(text));
  },
});

const approve = defineCommand({
  meta: {
    name: "approve",
    description: "Approve this trusted project's hooks (.agent/settings.json, .claude/settings.json) as they read now: a change to them asks again",
    examples: ["lembas hooks approve"],
  },
  args: {},
  run() {
    const ctx = createContext();
    const db = ctx.db();
    const root = projectRoot(process.cwd());
    const files = projectHooks(root, db);
    if (files.length === 0) throw new UserError(`${root} has no hooks in .agent/settings.json or .claude/settings.json`, 2);
    if (files.some((f) => f.state === "untrusted")) throw new UserError(`${root} is not trusted: lembas trust, then lembas hooks approve`, 2);
    for (const file of files) {
      for (const problem of file.problems) console.error(terminalText(`lembas: ${problem}`));
      if (file.state === "invalid" || file.specs.length === 0) continue;
      if (file.state === "approved") {
        console.log(terminalText(`${file.path}'s hooks are approved already`));
        continue;
      }
      console.log(terminalText(`${file.path} runs these commands:`));
      for (const spec of file.specs) console.log(terminalText(`  ${spec.event} ${spec.matcher ?? "*"} → ${spec.command}`));
      approveProjectHooks(db, file);
      console.log(terminalText(`approved: sessions in ${root} run ${file.file}'s hooks as they read now`));
    }
  },
});

export default defineCommand({
  meta: { name: "hooks", description: "The commands lembas runs at points of a session (Claude Code's hooks): lembas hooks lists them", examples: ["lembas hooks", "lembas hooks approve"] },
  subCommands: { list, approve },
  run: () => list.run?.({ args: {} }),
});
