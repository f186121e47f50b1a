import { defineCommand, renderUsage, runCommand, type SubCommandsDef } from "citty";
import { VERSION, versionLine } from "../version.ts";
import { UserError } from "../errors.ts";
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
    await runCommand(root, { rawArgs: argv });
  } catch (error) {
    process.exitCode = report(error);
  }
}

/**
 * A subcommand one word is a likely typo of, so that `lembas sevre` is not sent to the model: one
 * edit for a word of four letters or fewer, two for a longer one (else `lembas test` would be
 * taken for trust, `lembas logs` for login).
 */
function nearestSubcommand(word: string): string | null {
  if (!/^[a-z]{3,}$/.test(word)) return null;
  const most = word.length <= 4 ? 1 : 2;
  for (const name of Object.keys(subCommands)) if (editDistance(word, name) <= most) return name;
  return null;
}

/** Edits (insert, delete, change, swap two neighbours) from one word to another. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.length, b.length);
}

async function printUsage(argv: string[]): Promise<void> {
  const name = argv.find((a) => !a.startsWith("-"));
  const lazy = name && name in subCommands ? subCommands[name as keyof typeof subCommands] : undefined;
  const usage = lazy ? await renderUsage(await lazy(), root) : `${await renderUsage(root)}\n\n${(await import("./tui.ts")).TERMINAL_USAGE}`;
  // Colours for a person at a terminal; plain text for a pipe, a file, or NO_COLOR.
  const plain = !process.stdout.isTTY || process.env.NO_COLOR !== undefined;
  console.log(plain ? Bun.stripANSI(usage) : usage);
}
