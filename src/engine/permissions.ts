import type { Mode } from "../config/schema.ts";
import { isProtected, type ProtectedPaths } from "../project/protected.ts";
import type { PermissionClass } from "../tools/tool.ts";
import { isInside } from "../paths.ts";
import type { CommandPlace } from "./command-keys.ts";
import { type ActiveRule, matchingRule } from "./rule-match.ts";

// The command analyser (command-keys.ts and the command-*.ts it reads with, a tenth of the engine's
// code) is loaded with the first command judged, not with the engine: a one-shot's first model
// request does not wait for it (bench/START.md).
const commandKeys: typeof import("./command-keys.ts").commandKeys = (...args) => (require("./command-keys.ts") as typeof import("./command-keys.ts")).commandKeys(...args);
const plainConcern: typeof import("./command-keys.ts").plainConcern = (...args) => (require("./command-keys.ts") as typeof import("./command-keys.ts")).plainConcern(...args);
const diskPlace: typeof import("./command-disk.ts").diskPlace = (...args) => (require("./command-disk.ts") as typeof import("./command-disk.ts")).diskPlace(...args);

export type Action = "allow" | "ask" | "deny";
type Rule = { permission: PermissionClass | "*"; action: Action };

/**
 * The modes as rule sets: the last rule that matches wins. Paths outside the project and protected
 * paths then raise "allow" to "ask" in every mode (see decide()).
 */
export const MODE_RULES: Record<Mode, readonly Rule[]> = {
  plan: [
    { permission: "*", action: "allow" },
    { permission: "write", action: "deny" },
    { permission: "exec", action: "deny" },
  ],
  manual: [
    { permission: "*", action: "allow" },
    { permission: "write", action: "ask" },
    { permission: "exec", action: "ask" },
  ],
  edit: [
    { permission: "*", action: "allow" },
    { permission: "exec", action: "ask" },
  ],
  auto: [{ permission: "*", action: "allow" }],
};

export const MODE_ORDER: readonly Mode[] = ["plan", "manual", "edit", "auto"];

export function modeAction(mode: Mode, permission: PermissionClass): Action {
  let action: Action = "deny";
  for (const rule of MODE_RULES[mode]) {
    if (rule.permission === "*" || rule.permission === permission) action = rule.action;
  }
  return action;
}

export type Decision = {
  action: Action;
  /** Why it asks or is refused, said to the person and (when refused) to the model. */
  reason: string;
  /**
   * What "allow for this session" would allow, as keys remembered by the session; null: never
   * offered. `rules`: the same as rules that can be kept beyond the session (for the project,
   * everywhere), null where it is the session's alone (a path outside the project).
   */
  always: { keys: string[]; label: string; rules: string[] | null } | null;
  /**
   * Set only on the mode's own ask (what an allow rule would lift): a PreToolUse hook's `allow`
   * lifts that and nothing else. A protected path, a place outside the project, a command of
   * concern and an ask rule still ask.
   */
  modeAsk?: true;
};

export type Check = {
  mode: Mode;
  permission: PermissionClass;
  toolName: string;
  /** Absolute paths the call touches. */
  paths: string[];
  /** The command line, for exec. */
  command?: string;
  /** The directory the command runs in (absolute); the root when absent. */
  cwd?: string;
  /** The HOME of the command's shell (`~`, `$HOME`); the user's when absent. */
  home?: string | undefined;
  root: string;
  protectedPaths: ProtectedPaths;
  /** The hosts the call reaches (fetch). */
  hosts?: string[];
  /** Keys the person answered for this session: a key allows, the same key as {@link deniedKey} makes refuses. */
  allowed: ReadonlySet<string>;
  /** The tool's own key for "allow for this session" (an MCP tool's name), instead of a command's. */
  allowKey?: string;
  /** The call reaches outside as fetch does (web_search): asked as an unseen host is, by its allowKey. */
  asksFirst?: boolean;
  /** The rules in force (config.yaml's, the project's files', those kept from cards): deny wins over ask over allow. */
  rules?: readonly ActiveRule[];
};

/** What a refusal in plan mode tells the model to do instead (the terminal says it its own way). */
export const PLAN_NEXT = ": submit a plan with plan_submit";

/** Decides whether a tool call runs, asks, or is refused. */
export function decide(check: Check): Decision {
  const base = modeAction(check.mode, check.permission);
  if (base === "deny") {
    const next = check.mode === "plan" ? PLAN_NEXT : "";
    return { action: "deny", reason: `${check.mode} mode does not allow ${describe(check.permission)}${next}`, always: null };
  }
  // Every mode is offered the same tools (toolset.ts): a plan outside plan mode is refused here.
  if (check.toolName === "plan_submit" && check.mode !== "plan") {
    return { action: "deny", reason: `plan_submit is for plan mode, and the session is in ${check.mode} mode: carry out the task`, always: null };
  }
  const refused = sessionDenial(check);
  if (refused) return refused;
  const rule = check.rules && check.rules.length > 0 ? matchingRule(check.rules, { ...check, hosts: check.hosts ?? [] }) : null;
  const named = rule ? `the rule ${rule.action === "allow" ? "Allow" : rule.action === "ask" ? "Ask" : "Deny"} ${rule.rule.text} (${rule.source.label})` : "";
  if (rule?.action === "deny") return { action: "deny", reason: `${named} refuses it`, always: null };
  if (rule?.action === "ask") return { action: "ask", reason: `${named} asks first`, always: null };
  const allowing = rule?.action === "allow" && ruleMayAllow(check) ? rule : null;
  const host = allowing?.rule.kind === "fetch" ? null : (unseenHost(check) ?? unallowedReach(check, allowing !== null));
  if (host) return host;
  const guarded = check.paths.find((p) => isProtected(p, check.root, check.protectedPaths));
  if (guarded) return { action: "ask", reason: `${guarded} is a protected path`, always: null };
  // A rule the person wrote for paths outside the project (Read(~/notes/**)) is theirs to keep.
  if (allowing && (allowing.rule.kind === "edit" || allowing.rule.kind === "read")) return { action: "allow", reason: `allowed by ${named}`, always: null };
  const outside = check.paths.find((p) => !isInside(p, check.root));
  if (outside) {
    const key = `${check.permission}:outside`;
    if (check.allowed.has(key)) return { action: "allow", reason: "allowed for this session", always: null };
    return {
      action: "ask",
      reason: `${outside} is outside the project`,
      always: { keys: [key], label: `${describe(check.permission)} outside the project, for this session`, rules: null },
    };
  }
  if (base === "allow") {
    const concern = check.permission === "exec" && check.command !== undefined ? plainConcern(check.command, commandPlace(check)) : null;
    // A protected path or a write outside the project asks in every mode, a command's too.
    if (concern) return { action: "ask", reason: concern, always: null };
    return { action: "allow", reason: `${check.mode} mode`, always: null };
  }
  if (allowing) return { action: "allow", reason: `allowed by ${named}`, always: null };
  const asking = `${check.mode} mode asks before ${describe(check.permission)}`;
  if (check.permission === "write") return byKeys(check, [WRITE_KEY], "file changes in the project, for this session", asking);
  if (check.allowKey !== undefined) return byKeys(check, [`tool:${check.allowKey}`], `${check.allowKey} calls, for this session`, asking);
  if (check.permission !== "exec") return { action: "ask", reason: asking, always: null, modeAsk: true };
  const judged = commandKeys(check.command ?? "", commandPlace(check));
  if ("never" in judged || judged.keys.length === 0) {
    // "Always" is never offered for it; a hook judging this call alone may still let it through, unless it is of concern in any mode.
    const concern = plainConcern(check.command ?? "", commandPlace(check));
    return concern ? { action: "ask", reason: asking, always: null } : { action: "ask", reason: asking, always: null, modeAsk: true };
  }
  const missing = judged.keys.filter((k) => !check.allowed.has(execKey(k)));
  return byKeys(check, missing.map(execKey), commandsLabel(missing), asking);
}

/** The session key of a denial ("No, for this session"), kept beside the keys it allows. */
export const deniedKey = (key: string): string => `deny!${key}`;

/** A refusal where the person said "No, for this session" to what this call would do. */
function sessionDenial(check: Check): Decision | null {
  if (![...check.allowed].some((key) => key.startsWith("deny!"))) return null;
  const hit = sessionKeys(check).find((key) => check.allowed.has(deniedKey(key)));
  return hit ? { action: "deny", reason: `you denied ${keyText(hit)} for this session`, always: null } : null;
}

/** The session keys of a call: those "allow for this session" offers for it (what a session deny names). */
function sessionKeys(check: Check): string[] {
  const keys = (check.hosts ?? []).map(hostKey);
  if (check.allowKey !== undefined) keys.push(`tool:${check.allowKey}`);
  if (check.paths.some((p) => !isInside(p, check.root))) keys.push(`${check.permission}:outside`);
  if (check.permission === "write" && check.paths.some((p) => isInside(p, check.root))) keys.push(WRITE_KEY);
  if (check.permission === "exec" && check.command !== undefined) {
    const judged = commandKeys(check.command, commandPlace(check));
    if ("keys" in judged) keys.push(...judged.keys.map(execKey));
  }
  return keys;
}

/** A session key as a person reads it: `exec:npm test` is "npm test commands". */
function keyText(key: string): string {
  const [kind = "", ...rest] = key.split(":");
  const value = rest.join(":");
  if (kind === "exec") return `${value} commands`;
  if (kind === "fetch") return `fetching from ${value}`;
  if (kind === "tool") return `${value} calls`;
  if (value === "outside") return `${describe(kind as PermissionClass)} outside the project`;
  return "file changes in the project";
}

/**
 * Whether an allow rule may let this call through: never a command that "always" is never offered
 * for (it builds its own commands, writes outside the project, touches a protected path).
 */
function ruleMayAllow(check: Check): boolean {
  if (check.permission !== "exec" || check.command === undefined) return true;
  if (plainConcern(check.command, commandPlace(check))) return false;
  return !("never" in commandKeys(check.command, commandPlace(check)));
}

/**
 * A host not allowed for the session asks in every mode but auto: "allow once" lets this call
 * through, "allow for this session" every later one of the host too.
 */
function unseenHost(check: Check): Decision | null {
  if (check.mode === "auto") return null;
  const missing = (check.hosts ?? []).filter((h) => !check.allowed.has(hostKey(h)));
  if (missing.length === 0) return null;
  return {
    action: "ask",
    reason: `${listed(missing)} ${missing.length === 1 ? "is a host" : "are hosts"} not allowed for this session`,
    always: { keys: missing.map(hostKey), label: `fetching from ${listed(missing)}, for this session`, rules: rulesOf(missing.map(hostKey)) },
    modeAsk: true,
  };
}

/** A tool that reaches outside (web_search) asks as an unseen host does, until allowed for the session or by a rule. */
function unallowedReach(check: Check, ruled: boolean): Decision | null {
  if (!check.asksFirst || check.allowKey === undefined || check.mode === "auto" || ruled) return null;
  const key = `tool:${check.allowKey}`;
  if (check.allowed.has(key)) return null;
  return { action: "ask", reason: `${check.allowKey} reaches outside and is not allowed for this session`, always: { keys: [key], label: `${check.allowKey} calls, for this session`, rules: null }, modeAsk: true };
}

const hostKey = (host: string): string => `fetch:${host.toLowerCase()}`;

/** Where a command line runs, and how its paths are judged: the disk as it is now, symlinks followed as bash will. */
function commandPlace(check: Check): CommandPlace {
  return diskPlace({ cwd: check.cwd ?? check.root, root: check.root, home: check.home, protectedPaths: check.protectedPaths });
}

/** Programs whose subcommands run what the project's own files say (package.json, a Makefile). */
const PROJECT_SCRIPTS = /^(npm|pnpm|yarn|bun|make|just) /;

/** What "always" allows, said plainly: `npm test` runs whatever the project's script is at the time. */
function commandsLabel(keys: string[]): string {
  const scripts = keys.some((key) => PROJECT_SCRIPTS.test(key)) ? " (they run the project's own scripts, as those then are)" : "";
  return `${listed(keys)} commands${scripts}, for this session`;
}

/** Allowed when the session holds every key; otherwise asks, offering the keys it lacks. */
function byKeys(check: Check, keys: string[], label: string, asking: string): Decision {
  if (keys.every((k) => check.allowed.has(k))) return { action: "allow", reason: "allowed for this session", always: null };
  return { action: "ask", reason: asking, always: { keys, label, rules: rulesOf(keys) }, modeAsk: true };
}

/** The rules a card keeps for session keys: `exec:npm test` is Bash(npm test:*), `write:project` Edit(/**). */
function rulesOf(keys: string[]): string[] | null {
  const rules: string[] = [];
  for (const key of keys) {
    const [kind = "", ...rest] = key.split(":");
    const value = rest.join(":");
    if (kind === "exec") rules.push(`Bash(${value}:*)`);
    else if (kind === "write" && value === "project") rules.push("Edit(/**)");
    else if (kind === "fetch") rules.push(`WebFetch(domain:${value})`);
    else if (kind === "tool") rules.push(value);
    else return null;
  }
  return rules;
}

const WRITE_KEY = "write:project";
const execKey = (key: string): string => `exec:${key}`;

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function describe(permission: PermissionClass): string {
  if (permission === "write") return "changing files";
  if (permission === "exec") return "running commands";
  if (permission === "read") return "reading files";
  return "this";
}
