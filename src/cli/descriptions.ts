/**
 * Each subcommand's one-line description: its own help page's and the line `lembas --help` lists
 * it by, which then loads none of the subcommands' modules (main.ts).
 */
export const DESCRIPTIONS = {
  config: "Read and change config.yaml",
  trust: "Trust a directory (default: the current one) and everything below it; --list shows them",
  untrust: "Stop trusting a directory",
  run: "Run one prompt to the end and print the answer",
  serve: "Run the device service (links to your instances), or serve ACP to an editor with --stdio",
  login: "Link this device to a LLeMbas instance with a device token",
  logout: "Forget a login (its token); the service drops its link",
  status: "Each login, its link's state, its balance, and the sessions it holds",
  usage: "Each login's plan, balance, this month's and this device's spend, and its spending windows",
  sessions: "List, show, delete and prune the sessions on this device",
  models: "List every model ref this device can use, with the API it is spoken to in (chat, messages, responses) and its context window and where that came from",
  service: "Run lembas serve as a systemd (Linux) or launchd (macOS) service",
  doctor: "Check the config, the database, the models, the logins, the service, the shells and the tools' sandbox",
  mcp: "The MCP servers whose tools sessions are offered",
  hooks: "The commands lembas runs at points of a session (Claude Code's hooks): lembas hooks lists them",
  permissions: "The rules that allow, ask or deny tool calls beyond the mode (Claude Code's shape: Bash(npm test), Edit(src/**)): lembas permissions lists them",
  library: "The library: documents the agent can search (add, list, remove, search); the account's is managed in the web UI",
  index: "The project's code index that code_search searches by meaning (status, rebuild, off, on)",
} as const;
