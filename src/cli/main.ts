import { VERSION, versionLine } from "../version.ts";
import { UserError } from "../errors.ts";
import { commandAt, type DescribedLazy, defineCommand, describedLazy, runCommand } from "./command.ts";
import { DESCRIPTIONS } from "./descriptions.ts";
import { nearest } from "../suggest.ts";
import { startedUpAtTheLatest } from "../jit-policy.ts";
import { renderUsage } from "./usage.ts";

/** Every subcommand, imported only when it is the one that runs (`lembas --help` lists them by their descriptions alone). */
const subCommands: Record<string, DescribedLazy> = {
  config: describedLazy(DESCRIPTIONS.config, () => import("./config.ts").then((m) => m.default)),
  trust: describedLazy(DESCRIPTIONS.trust, () => import("./trust.ts").then((m) => m.default)),
  untrust: describedLazy(DESCRIPTIONS.untrust, () => import("./untrust.ts").then((m) => m.default)),
  run: describedLazy(DESCRIPTIONS.run, () => import("./run.ts").then((m) => m.default)),
  serve: describedLazy(DESCRIPTIONS.serve, () => import("./serve.ts").then((m) => m.default)),
  login: describedLazy(DESCRIPTIONS.login, () => import("./login.ts").then((m) => m.default)),
  logout: describedLazy(DESCRIPTIONS.logout, () => import("./logout.ts").then((m) => m.default)),
  status: describedLazy(DESCRIPTIONS.status, () => import("./status.ts").then((m) => m.default)),
  usage: describedLazy(DESCRIPTIONS.usage, () => import("./account-usage.ts").then((m) => m.default)),
  sessions: describedLazy(DESCRIPTIONS.sessions, () => import("./sessions.ts").then((m) => m.default)),
  models: describedLazy(DESCRIPTIONS.models, () => import("./models.ts").then((m) => m.default)),
  service: describedLazy(DESCRIPTIONS.service, () => import("./service.ts").then((m) => m.default)),
  doctor: describedLazy(DESCRIPTIONS.doctor, () => import("./doctor.ts").then((m) => m.default)),
  mcp: describedLazy(DESCRIPTIONS.mcp, () => import("./mcp.ts").then((m) => m.default)),
  hooks: describedLazy(DESCRIPTIONS.hooks, () => import("./hooks.ts").then((m) => m.default)),
  permissions: describedLazy(DESCRIPTIONS.permissions, () => import("./permissions.ts").then((m) => m.default)),
  library: describedLazy(DESCRIPTIONS.library, () => import("./library.ts").then((m) => m.default)),
  index: describedLazy(DESCRIPTIONS.index, () => import("./index-command.ts").then((m) => m.default)),
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
    // report.ts loads the store's module (bun:sqlite) to name its failures: loaded for an error only.
    process.exitCode = (await import("./report.ts")).report(error);
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
  console.log(cmd === root ? `${usage}\n\n${(await import("./terminal-usage.ts")).TERMINAL_USAGE}` : usage);
}
