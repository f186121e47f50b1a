import { defineCommand } from "./command.ts";
import { projectRoot } from "../engine/engine.ts";
import { approvalText } from "../engine/session-mcp.ts";
import { UserError } from "../errors.ts";
import { approveProjectServers, projectServers } from "../mcp/from-project.ts";
import { listServers } from "../mcp/listing.ts";
import { toolEnvironment } from "../tools/environment.ts";
import { mcpListText } from "../mcp/list-text.ts";
import { listLogins } from "../store/logins.ts";
import { createContext } from "../app/context.ts";
import { terminalText } from "../controls.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

const list = defineCommand({
  meta: {
    name: "list",
    description: "List the MCP servers a session here would use: config.yaml's mcp:, this project's .mcp.json (and whether you approved it), your logins' instances",
    examples: ["lembas mcp list", "lembas mcp list --probe", "lembas mcp list --no-start"],
  },
  args: {
    probe: { type: "boolean", description: "Ask each login's instance now whether it serves /mcp (else what was found within a day)" },
    "no-start": { type: "boolean", description: "Only what the configuration says: without it each server is started (together, 5 s each at most) to show whether it starts and its tools" },
  },
  async run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    const config = ctx.config();
    const root = projectRoot(process.cwd());
    const listing = await listServers({
      config,
      db,
      root,
      logins: listLogins(db),
      vars: process.env,
      instance: { fresh: args.probe === true },
    });
    // Loaded only to start them: the SDK stays out of a plain list.
    const inspected = args["no-start"] === true ? undefined : await (await import("../mcp/inspect.ts")).inspectServers(listing, {
            env: toolEnvironment(config, process.env),
            cwd: root,
            hidden: [ctx.paths.configDir, ctx.paths.stateDir],
            onNotice: (message) => console.error(terminalText(message)),
          });
    for (const line of mcpListText(listing, inspected)) console.log(line);
  },
});

const approve = defineCommand({
  meta: {
    name: "approve",
    description: "Approve this trusted project's .mcp.json servers as the file reads now (a change to it asks again)",
    examples: ["lembas mcp approve"],
  },
  args: {},
  run() {
    const ctx = createContext();
    const db = ctx.db();
    const root = projectRoot(process.cwd());
    const project = projectServers(root, db, process.env);
    if (project.state === "none") throw new UserError(`there is no .mcp.json in ${root}`, 2);
    if (project.state === "untrusted") throw new UserError(`${root} is not trusted: lembas trust, then lembas mcp approve`, 2);
    if (project.state === "invalid") throw new UserError(project.problems.map((p) => p.problem).join("; "), 2);
    if (project.state === "approved" || !project.needsApproval) {
      console.log(`${root}/.mcp.json is approved already: ${project.specs.map((s) => s.name).join(", ")}`);
      return;
    }
    console.log(approvalText(project.needsApproval));
    approveProjectServers(db, root, project.needsApproval.hash);
    console.log(`approved: sessions in ${root} start ${project.needsApproval.servers.map((s) => s.name).join(", ")}`);
  },
});

export default defineCommand({
  meta: { name: "mcp", description: DESCRIPTIONS.mcp, examples: ["lembas mcp list", "lembas config set mcp.git.command uvx"] },
  subCommands: { list, approve },
});
