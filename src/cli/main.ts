import { VERSION, versionLine } from "../version.ts";
import { UserError } from "../errors.ts";
import { type CommandDef, commandAt, defineCommand, runCommand } from "./command.ts";
import { report } from "./report.ts";
import { nearest } from "../suggest.ts";
import { startedUpAtTheLatest } from "../jit-policy.ts";
import { renderUsage } from "./usage.ts";

/** Every subcommand, imported only when it is the one that runs. */
const subCommands: Record<string, () => Promise<CommandDef>> = {
  config: () => import("./config.ts").then((m) => m.default),
  trust: () => import("./trust.ts").then((m) => m.default),
  untrust: () => import("./untrust.ts").then((m) => m.default),
  run: () => import("./run.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  login: () => import("./login.ts").then((m) => m.default),
  logout: () => import("./logout.ts").then((m) => m.default),
  status: () => import("./status.ts").then((m) => m.default),
  usage: () => import("./account-usage.ts").then((m) => m.default),
  sessions: () => import("./sessions.ts").then((m) => m.default),
  models: () => import("./models.ts").then((m) => m.default),
  service: () => import("./service.ts").then((m) => m.default),
  doctor: () => import("./doctor.ts").then((m) => m.default),
  mcp: () => import("./mcp.ts").then((m) => m.default),
  hooks: () => import("./hooks.ts").then((m) => m.default),
  permissions: () => import("./permissions.ts").then((m) => m.default),
  library: () => import("./library.ts").then((m) => m.default),
  index: () => import("./index-command.ts").then((m) => m.default),
};

export const root = defineCommand({
  meta: {
    name: "lembas",
    description: `A coding agent on your device: for the LLeMbas web UI, your editor and your terminal (lembas ${VERSION}).`,
    examples: ["lembas", 'lembas run "fix the failing test"', "lembas config set model local/qwen2.5-coder"],
  },
  subCommands,
});

export async function main(argv: string[]): Promise<void> {
  try {
    // After `--` every word is the prompt's, --help too.
    const options = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
    if (options.includes("--help") || options.includes("-h")) {
      await printUsage(argv);
      return;
    }
    if (argv[0] === "--version" || argv[0] === "-v") {
      console.log(versionLine());
      return;
    }
    if (argv.length === 0 || !(argv[0] && argv[0] in subCommands)) {
      const near = argv.length === 1 && argv[0] ? nearestSubcommand(argv[0]) : null;
      if (near) throw new UserError(`there is no subcommand ${argv[0]} (did you mean ${near}?); to send it as a prompt: lembas -- ${argv[0]}`, 2);
      // Not a subcommand: `lembas [PROMPT] [options]`, the interactive terminal.
      const { runTerminal } = await import("./tui.ts");
      await runTerminal(argv);
      return;
    }
    // The service says itself when it is up (service/daemon.ts), as the terminal does (tui/app.ts).
    if (argv[0] !== "serve" || options.includes("--stdio")) startedUpAtTheLatest();
    // Its git status runs while run.ts and the engine load (the first model request waits on it).
    if (argv[0] === "run") (await import("./run-early.ts")).startRunEarly(argv.slice(1));
    await runCommand(root, argv, ["lembas"]);
  } catch (error) {
    process.exitCode = report(error);
  }
}

/** A subcommand one word is a likely typo of, so that `lembas sevre` is not sent to the model. */
function nearestSubcommand(word: string): string | null {
  if (!/^[a-z]{3,}$/.test(word)) return null;
  return nearest(word, Object.keys(subCommands));
}

/** The help page of the command the words name, as far as they name one: `lembas sessions prune --help` is prune's. */
async function printUsage(argv: string[]): Promise<void> {
  const { cmd, path } = await commandAt(root, argv, "lembas");
  const usage = await renderUsage(cmd, path);
  console.log(cmd === root ? `${usage}\n\n${(await import("./tui.ts")).TERMINAL_USAGE}` : usage);
}
