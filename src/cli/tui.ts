import { resolve } from "node:path";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import { resolvePaths } from "../config/paths.ts";
import { UserError } from "../errors.ts";
import { type Db, openDb } from "../store/db.ts";
import { runCommand } from "./command.ts";
import type { TerminalArgs } from "../app/terminal-args.ts";
import { didYouMean } from "../suggest.ts";

const TERMINAL_OPTIONS = ["--continue", "--resume", "--fork", "--share", "--model", "--mode", "--effort"];

/** Reads the terminal's arguments; a wrong one is a UserError (exit 2). */
export function parseTerminalArgs(argv: readonly string[]): TerminalArgs {
  const out: TerminalArgs = { prompt: null, continue: false, resume: null, fork: false, share: false };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (name: string): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UserError(`${name} needs a value`, 2);
      return v;
    };
    if (flag === "-c" || flag === "--continue") out.continue = true;
    else if (flag === "-r" || flag === "--resume") {
      const next = inline ?? argv[i + 1];
      if (next !== undefined && !next.startsWith("-") && inline === undefined) i++;
      out.resume = next !== undefined && !next.startsWith("-") ? next : true;
    } else if (flag === "--fork") {
      if (inline !== undefined) throw new UserError("--fork takes no value", 2);
      out.fork = true;
    } else if (flag === "--share") {
      if (inline !== undefined) throw new UserError("--share takes no value", 2);
      out.share = true;
    } else if (flag === "--model") out.model = value("--model");
    else if (flag === "--mode") {
      const mode = value("--mode");
      if (!isOneOf(MODES, mode)) throw new UserError(`--mode must be one of ${MODES.join(", ")}`, 2);
      out.mode = mode;
    } else if (flag === "--effort") {
      const effort = value("--effort");
      if (!isOneOf(EFFORTS, effort)) throw new UserError(`--effort must be one of ${EFFORTS.join(", ")}`, 2);
      out.effort = effort;
    } else if (flag === "--") {
      words.push(...argv.slice(i + 1));
      break;
    } else if (flag.startsWith("-") && flag.length > 1) throw new UserError(`unknown option ${flag}${didYouMean(flag, TERMINAL_OPTIONS)} (lembas --help lists them)`, 2);
    else words.push(arg);
  }
  if (out.continue && out.resume !== null) throw new UserError("say -c or -r, not both", 2);
  if (out.fork && typeof out.resume !== "string") throw new UserError("--fork forks the session -r names: say lembas -r ID --fork", 2);
  if (words.length > 0) out.prompt = words.join(" ");
  return out;
}

/** `lembas [PROMPT]`: the interactive terminal, or `lembas run` when stdin or stdout is not a terminal. */
export async function runTerminal(argv: readonly string[]): Promise<void> {
  const args = parseTerminalArgs(argv);
  if (!process.stdin.isTTY || !process.stdout.isTTY) return runPiped(args);
  const paths = resolvePaths();
  const cwd = resolve(process.cwd());
  // The first frame comes from a few light modules; the app's own load under it (tui/first-frame.ts).
  const [{ FirstFrame }, { checkOpening, openingOf }, { glanceConfig }] = await Promise.all([
    import("../tui/first-frame.ts"),
    import("../tui/opening.ts"),
    import("../config/glance.ts"),
  ]);
  let db: Db | undefined;
  const store = () => (db ??= openDb(paths.dbFile));
  let opening = openingOf(args);
  // A session that cannot be opened is said before any screen.
  checkOpening(store, cwd, opening);
  const shown = glanceConfig(paths.configFile);
  const frame = new FirstFrame(cwd, shown.theme, { model: args.model ?? shown.model, mode: args.mode ?? shown.mode, effort: args.effort ?? shown.effort });
  let code: number;
  try {
    const { createContext } = await import("../app/context.ts");
    const ctx = createContext(process.env, store);
    // config.yaml is checked whole here, right after the first frame (zod and the schema cost more
    // than the rest of it): a bad one ends the screen, erased, with its sentence, before a key is read.
    ctx.config();
    // A resumed session's history is drawn before the app's modules load: it is most of what the screen shows.
    const { drawResumedHistory } = await import("../tui/resumed-history.ts");
    opening = await drawResumedHistory(frame, ctx.db(), cwd, opening);
    const { openTerminal } = await import("../tui/main.ts");
    code = await openTerminal(ctx, cwd, args, opening, frame);
  } finally {
    frame.close();
  }
  // The session is closed and the store consistent: what is left (a hung-up terminal's reader,
  // a model request's socket) must not keep the process alive.
  process.exit(code);
}

async function runPiped(args: TerminalArgs): Promise<void> {
  if (args.resume === true) throw new UserError("-r without an id needs a terminal to pick in: say the session's id", 2);
  if (args.share) throw new UserError("--share shares the interactive terminal's session: run it at a terminal, not in a pipe", 2);
  // A prompt on stdin is run's `-`: read once, by run's own bounded reader.
  const prompt = args.prompt ?? (process.stdin.isTTY ? null : "-");
  if (prompt === null) throw new UserError("no prompt: give one as an argument or on stdin (lembas \"what to do\")", 2);
  const run = (await import("./run.ts")).default;
  // The prompt after `--`: one that starts with a dash (a markdown list on stdin) is not an option.
  const rawArgs = [
    ...(args.continue ? ["--continue"] : []),
    ...(typeof args.resume === "string" ? ["--session", args.resume] : []),
    ...(args.fork ? ["--fork"] : []),
    ...(args.model ? ["--model", args.model] : []),
    ...(args.mode ? ["--mode", args.mode] : []),
    ...(args.effort ? ["--effort", args.effort] : []),
    "--",
    prompt,
  ];
  await runCommand(run, rawArgs, ["lembas", "run"]);
}
