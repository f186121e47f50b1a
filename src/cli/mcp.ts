import { defineCommand } from "./command.ts";
import { projectRoot } from "../engine/engine.ts";
import { listServers } from "../mcp/listing.ts";
import { mcpListText } from "../mcp/list-text.ts";
import { listLogins } from "../store/logins.ts";
import { createContext } from "./context.ts";

const list = defineCommand({
  meta: {
    name: "list",
    description: "List the MCP servers a session here would use: config.yaml's mcp:, this project's .mcp.json (and whether you approved it), your logins' instances",
    examples: ["lembas mcp list", "lembas mcp list --probe"],
  },
  args: {
    probe: { type: "boolean", description: "Ask each login's instance now whether it serves /mcp (else what was found within a day)" },
  },
  async run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    const listing = await listServers({
      config: ctx.config(),
      db,
      root: projectRoot(process.cwd()),
      logins: listLogins(db),
      vars: process.env,
      instance: { fresh: args.probe === true },
    });
    for (const line of mcpListText(listing)) console.log(line);
  },
});

export default defineCommand({
  meta: { name: "mcp", description: "The MCP servers whose tools sessions are offered", examples: ["lembas mcp list", "lembas config set mcp.git.command uvx"] },
  subCommands: { list },
});
