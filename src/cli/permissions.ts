import { createContext } from "../app/context.ts";
import { terminalText } from "../controls.ts";
import { projectRoot } from "../engine/engine.ts";
import { revokeRule, ruleLines } from "../engine/rule-listing.ts";
import { UserError } from "../errors.ts";
import { defineCommand } from "./command.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

const list = defineCommand({
  meta: {
    name: "list",
    description: "List the permission rules: config.yaml's permissions:, this project's .agent/settings.json, .claude/settings.json and .claude/settings.local.json (ask, deny), and those kept from cards, each with where it holds and when it expires",
    examples: ["lembas permissions list", "lembas permissions"],
  },
  args: {},
  run() {
    const ctx = createContext();
    for (const text of ruleLines(ctx.config(), ctx.db(), projectRoot(process.cwd()))) console.log(terminalText(text));
  },
});

const revoke = defineCommand({
  meta: {
    name: "revoke",
    description: "Take back a rule kept from a card, by the id lembas permissions list shows (config.yaml's and a project file's are edited in their files)",
    examples: ["lembas permissions revoke rule_1a2b3c4d"],
  },
  args: { id: { type: "positional", description: "the rule's id (rule_…)", required: true } },
  run({ args }) {
    const ctx = createContext();
    const answer = revokeRule(ctx.config(), ctx.db(), projectRoot(process.cwd()), args.id);
    if (!answer.revoked) throw new UserError(answer.text, 2);
    console.log(terminalText(answer.text));
  },
});

export default defineCommand({
  meta: {
    name: "permissions",
    description: DESCRIPTIONS.permissions,
    examples: ["lembas permissions", "lembas permissions revoke rule_1a2b3c4d"],
  },
  subCommands: { list, revoke },
  run: () => list.run?.({ args: {} }),
});
