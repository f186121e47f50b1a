import { homedir } from "../home.ts";
import { join } from "node:path";
import type { CommandSetup } from "../tools/capabilities.ts";
import type { ToolContext } from "../tools/tool.ts";
import { type ActiveRule, pathGlob, type PathGlob } from "./rule-match.ts";

/**
 * What the `Read(...)` deny rules in force keep from the model beyond the read tool: searches and
 * listings leave what they cover out (as they leave out secrets), and a command's sandbox hides it.
 */
export type DeniedReads = {
  /** Whether a deny rule covers the path (absolute). */
  covers(path: string): boolean;
  /** The files and directories the rules cover as the disk is now (found once), for a sandbox to hide. */
  places(): string[];
};

/** The most places one rule's glob is looked up for on disk, and hidden: the rest is left to the rule. */
const MAX_PLACES = 256;

/** The `Read(...)` deny rules of RULES at ROOT; null when there are none. */
export function deniedReads(rules: readonly ActiveRule[] | undefined, root: string, home: string = homedir()): DeniedReads | null {
  const globs = (rules ?? []).filter((r) => r.action === "deny" && r.rule.kind === "read" && r.rule.pattern !== undefined).map((r) => pathGlob(r.rule.pattern ?? "", root, home));
  if (globs.length === 0) return null;
  let found: string[] | null = null;
  return {
    covers: (path) => globs.some((glob) => glob.match(path)),
    places: () => {
      found ??= [...new Set(globs.flatMap(onDisk))];
      return found;
    },
  };
}

/**
 * Where a glob is on disk: `secrets/**` is the directory, a plain path that path (whether it is
 * there or not yet), and a glob with wildcards what it matches now below its literal start.
 */
function onDisk(glob: PathGlob): string[] {
  const segments = glob.rest.split("/");
  const wild = segments.findIndex((s) => /[*?[{]/.test(s));
  if (wild < 0) return [join(glob.base, glob.rest)];
  const start = join(glob.base, ...segments.slice(0, wild));
  const below = segments.slice(wild).join("/");
  if (below === "**") return [start];
  const out: string[] = [];
  try {
    for (const path of new Bun.Glob(below).scanSync({ cwd: start, dot: true, onlyFiles: false, followSymlinks: false, absolute: true })) {
      out.push(path);
      if (out.length >= MAX_PLACES) break;
    }
  } catch {
    // A start that is not a directory, or not there: nothing to hide.
  }
  return out;
}

/**
 * A tool's context with what `denied` covers kept from it: its searches and listings judge such a
 * path a secret (left out, name and content), and its commands' sandbox hides it.
 */
export function withDeniedReads(ctx: ToolContext, denied: DeniedReads | null): ToolContext {
  if (!denied) return ctx;
  const out: ToolContext = { ...ctx };
  if ("files" in ctx && ctx.files) {
    const files = ctx.files;
    out.files = { ...files, protection: (path) => files.protection(path) ?? (denied.covers(path) ? "secret" : null) };
  }
  if ("commands" in ctx && ctx.commands) {
    const commands = ctx.commands;
    out.commands = { ...commands, get hidden() { return [...commands.hidden, ...denied.places()]; } };
  }
  return out;
}

/**
 * A command setup whose sandbox also hides what the `Read(...)` deny rules in force cover, read
 * each time a command starts (a hook's: a rule kept in the session holds for the next one).
 */
export function hidingDenied(setup: CommandSetup, rules: () => readonly ActiveRule[], root: string): CommandSetup {
  return {
    get env() {
      return setup.env;
    },
    get hidden() {
      return [...setup.hidden, ...(deniedReads(rules(), root, setup.env.HOME)?.places() ?? [])];
    },
  };
}
