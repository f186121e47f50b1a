import { defineCommand, renderUsage, runCommand, type SubCommandsDef } from "citty";
import { VERSION, versionLine } from "../version.ts";
import { report } from "./report.ts";

/** Every subcommand, imported only when it is the one that runs. */
const subCommands = {
  config: () => import("./config.ts").then((m) => m.default),
  trust: () => import("./trust.ts").then((m) => m.default),
  untrust: () => import("./untrust.ts").then((m) => m.default),
  run: () => import("./run.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  login: () => import("./login.ts").then((m) => m.default),
  logout: () => import("./logout.ts").then((m) => m.default),
  status: () => import("./status.ts").then((m) => m.default),
  sessions: () => import("./sessions.ts").then((m) => m.default),
  models: () => import("./models.ts").then((m) => m.default),
  service: () => import("./service.ts").then((m) => m.default),
  doctor: () => import("./doctor.ts").then((m) => m.default),
} satisfies SubCommandsDef;

export const root = defineCommand({
  meta: { name: "lembas", version: VERSION, description: "A coding agent on your device: for the LLeMbas web UI, your editor and your terminal." },
  subCommands,
});

export async function main(argv: string[]): Promise<void> {
  try {
    if (argv.includes("--help") || argv.includes("-h")) {
      await printUsage(argv);
      return;
    }
    if (argv[0] === "--version" || argv[0] === "-v") {
      console.log(versionLine());
      return;
    }
    if (argv.length === 0 || !(argv[0] && argv[0] in subCommands)) {
      // Not a subcommand: `lembas [PROMPT] [options]`, the interactive terminal.
      const { runTerminal } = await import("./tui.ts");
      await runTerminal(argv);
      return;
    }
    await runCommand(root, { rawArgs: argv });
  } catch (error) {
    process.exitCode = report(error);
  }
}

async function printUsage(argv: string[]): Promise<void> {
  const name = argv.find((a) => !a.startsWith("-"));
  const lazy = name && name in subCommands ? subCommands[name as keyof typeof subCommands] : undefined;
  const usage = lazy ? await renderUsage(await lazy(), root) : `${await renderUsage(root)}\n\n${(await import("./tui.ts")).TERMINAL_USAGE}`;
  // Colours for a person at a terminal; plain text for a pipe, a file, or NO_COLOR.
  const plain = !process.stdout.isTTY || process.env.NO_COLOR !== undefined;
  console.log(plain ? Bun.stripANSI(usage) : usage);
}
