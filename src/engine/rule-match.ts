import { homedir } from "../home.ts";
import { isAbsolute, join, relative } from "node:path";
import type { PermissionRule } from "../config/permission-rules.ts";
import type { PermissionClass } from "../tools/tool.ts";
import { parseCommandLine } from "./command-line.ts";
import { ruleCommands } from "./rule-commands.ts";

/** Where a rule comes from, as listed: config.yaml, a settings file, or kept from a card. */
export type RuleSource = { kind: "config" | "project-file" | "kept"; label: string; id?: string; expiresAt?: number | null; scope?: string };

/** A rule in force: what it does, what it is, and where it comes from. */
export type ActiveRule = { action: "allow" | "ask" | "deny"; rule: PermissionRule; source: RuleSource };

/** One call as rules see it. */
export type RuleCall = {
  toolName: string;
  permission: PermissionClass;
  /** Absolute paths the call touches. */
  paths: string[];
  command?: string | undefined;
  hosts: string[];
  root: string;
  home?: string | undefined;
};

/**
 * The rule that decides a call, deny before ask before allow; null when none matches. A deny or an
 * ask matches when any simple command of a line does; an allow only when every one does.
 */
export function matchingRule(rules: readonly ActiveRule[], call: RuleCall): ActiveRule | null {
  for (const action of ["deny", "ask", "allow"] as const) {
    const found = rules.find((r) => r.action === action && covers(r.rule, call, action === "allow" ? "every" : "any"));
    if (found) return found;
  }
  return null;
}

function covers(rule: PermissionRule, call: RuleCall, how: "any" | "every"): boolean {
  if (rule.kind === "tool") return rule.tool?.endsWith("__") ? call.toolName.startsWith(rule.tool) : call.toolName === rule.tool;
  if (rule.kind === "command") {
    if (call.toolName !== "bash" || call.command === undefined) return false;
    if (rule.pattern === undefined) return true;
    const pattern = rule.pattern;
    // A deny or an ask also catches the command behind a wrapper, a shell's -c or find's -exec.
    if (how === "any") return [call.command.trim(), ...ruleCommands(call.command)].some((c) => commandMatches(pattern, c));
    const commands = simpleCommands(call.command);
    // A cd needs no rule to be allowed (permissions.ts lets an allow through only where every cd stays in the project).
    const run = commands.filter((c) => c !== "cd" && !c.startsWith("cd "));
    return run.length > 0 && run.every((c) => commandMatches(pattern, c));
  }
  if (rule.kind === "fetch") {
    if (call.hosts.length === 0) return false;
    if (rule.pattern === undefined) return true;
    const pattern = rule.pattern;
    const hit = (host: string) => (pattern.startsWith("*.") ? host.toLowerCase().endsWith(pattern.slice(1)) : host.toLowerCase() === pattern);
    return how === "any" ? call.hosts.some(hit) : call.hosts.every(hit);
  }
  const wanted = rule.kind === "edit" ? "write" : "read";
  if (call.permission !== wanted || call.paths.length === 0) return false;
  if (rule.pattern === undefined) return true;
  const glob = pathGlob(rule.pattern, call.root, call.home ?? homedir());
  return how === "any" ? call.paths.some((p) => glob.match(p)) : call.paths.every((p) => glob.match(p));
}

/** `npm test` is the line itself; `git status:*` (or `git status *`) the command and any arguments after it. */
function commandMatches(pattern: string, command: string): boolean {
  const prefix = pattern.endsWith(":*") ? pattern.slice(0, -2) : pattern.endsWith(" *") ? pattern.slice(0, -2) : null;
  if (prefix !== null) return command === prefix || command.startsWith(`${prefix} `);
  if (!pattern.includes("*")) return command === pattern;
  const regex = new RegExp(`^${pattern.split("*").map(escape).join(".*")}$`, "s");
  return regex.test(command);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The simple commands of a line, each as its words after quote removal; [] when it cannot be read. */
function simpleCommands(line: string): string[] {
  const parsed = parseCommandLine(line, { substitutions: true });
  if (parsed.kind !== "commands") return [];
  return parsed.commands.filter((c) => c.words.length > 0).map((c) => c.words.map((w) => w.text).join(" "));
}

/** A path rule's glob: where it starts (absolute), the glob below that, and whether it covers a path. */
export type PathGlob = { base: string; rest: string; match(path: string): boolean };

/**
 * A path rule's glob, gitignore-like as Claude Code's: `//abs` from the file system's root, `~/`
 * from HOME, `/x` and `x/y` from the project's root, a name without a slash at any depth.
 */
export function pathGlob(pattern: string, root: string, home: string): PathGlob {
  let base = root;
  let rest = pattern;
  if (pattern.startsWith("//")) {
    base = "/";
    rest = pattern.slice(2);
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    base = home;
    rest = pattern.slice(2);
  } else if (pattern.startsWith("./")) rest = pattern.slice(2);
  else if (pattern.startsWith("/")) rest = pattern.slice(1);
  else if (!pattern.includes("/")) rest = `**/${pattern}`;
  if (rest === "" || rest.endsWith("/")) rest = `${rest}**`;
  const glob = new Bun.Glob(rest);
  return {
    base,
    rest,
    match(path: string): boolean {
      const rel = relative(base, path);
      if (rel.startsWith("..") || isAbsolute(rel)) return false;
      // `dir/**` covers the directory itself, as a listing of it.
      return rel === "" ? rest === "**" : glob.match(rel) || glob.match(join(rel, "x"));
    },
  };
}
