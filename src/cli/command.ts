import { UserError } from "../errors.ts";
import { type ArgsDef, type ParsedArgs, parseArgs } from "./args.ts";
import { didYouMean } from "../suggest.ts";

export type { ArgsDef, ParsedArgs } from "./args.ts";

export type CommandMeta = {
  name: string;
  description: string;
  /** Command lines shown under "Examples:" on the help page; every page has one. */
  examples: readonly [string, ...string[]];
};

/** A subcommand, or a function that imports it (so that only the one that runs is loaded). */
export type Lazy<T> = T | (() => Promise<T>);

export type CommandDef<A extends ArgsDef = ArgsDef> = {
  meta: CommandMeta;
  args?: A;
  subCommands?: Record<string, Lazy<CommandDef>>;
  // Method syntax on purpose: a command of its own args still counts as a CommandDef.
  run?(context: { args: ParsedArgs<A> }): unknown;
  /** Told when its words are refused (an unknown option, a missing argument), before the refusal is thrown: `lembas run --format json` still ends with its result line. */
  refused?(argv: readonly string[], error: unknown): void;
};

export function defineCommand<const A extends ArgsDef = Record<never, never>>(def: CommandDef<A>): CommandDef<A> {
  return def;
}

/** A subcommand imported when it runs, and its one-line description known without importing it: its parent's help page lists it so. */
export type DescribedLazy = (() => Promise<CommandDef>) & { readonly description: string };

export function describedLazy(description: string, load: () => Promise<CommandDef>): DescribedLazy {
  return Object.assign(load, { description });
}

/** A subcommand's one-line description: a described one's without loading it. */
export async function descriptionOf(sub: Lazy<CommandDef>): Promise<string> {
  if (typeof sub === "function" && "description" in sub && typeof sub.description === "string") return sub.description;
  return (await resolveLazy(sub)).meta.description;
}

export async function resolveLazy<T>(lazy: Lazy<T>): Promise<T> {
  return typeof lazy === "function" ? (lazy as () => Promise<T>)() : lazy;
}

/**
 * Runs `argv` against `cmd`, whose words so far are `path` (["lembas", "sessions"]): a group takes
 * its first word as the subcommand, a leaf parses its options strictly and runs.
 */
export async function runCommand(cmd: CommandDef, argv: readonly string[], path: readonly string[]): Promise<void> {
  const line = path.join(" ");
  if (cmd.subCommands) {
    const names = Object.keys(cmd.subCommands);
    const [name, ...rest] = argv;
    // A group that runs by itself (`lembas hooks` lists them) does so without a word.
    if (name === undefined && cmd.run) return void (await cmd.run({ args: {} as ParsedArgs<ArgsDef> }));
    if (name === undefined) throw new UserError(`${line} needs a command: ${names.join(", ")} (${line} --help says more)`, 2);
    if (name.startsWith("-")) throw new UserError(`unknown option ${name} (${line} --help lists its commands)`, 2);
    const sub = cmd.subCommands[name];
    if (!sub) throw new UserError(`there is no command ${line} ${name}${didYouMean(name, names)}: ${line} --help lists them`, 2);
    return runCommand(await resolveLazy(sub), rest, [...path, name]);
  }
  let args: ParsedArgs<ArgsDef>;
  try {
    args = parseArgs(cmd.args ?? {}, argv, line);
  } catch (error) {
    cmd.refused?.(argv, error);
    throw error;
  }
  await cmd.run?.({ args });
}

/** The command whose help `argv` asks for: its words are followed as far as they name subcommands. */
export async function commandAt(root: CommandDef, argv: readonly string[], rootName: string): Promise<{ cmd: CommandDef; path: string[] }> {
  let cmd = root;
  const path = [rootName];
  for (const word of argv) {
    if (word === "--") break;
    if (word.startsWith("-")) continue;
    const sub = cmd.subCommands?.[word];
    if (!sub) break;
    cmd = await resolveLazy(sub);
    path.push(word);
  }
  return { cmd, path };
}
