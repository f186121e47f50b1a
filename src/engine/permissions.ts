import type { Mode } from "../config/schema.ts";
import { isProtected, type ProtectedPaths } from "../project/protected.ts";
import type { PermissionClass } from "../tools/tool.ts";
import { isInside } from "../paths.ts";

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

/** min(requested, max): a mode lowered to a limit. */
export function lowerMode(requested: Mode, max: Mode): Mode {
  return MODE_ORDER.indexOf(requested) <= MODE_ORDER.indexOf(max) ? requested : max;
}

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
  /** What "allow for this session" would allow, as a key remembered by the session; null: never offered. */
  always: { key: string; label: string } | null;
};

export type Check = {
  mode: Mode;
  permission: PermissionClass;
  toolName: string;
  /** Absolute paths the call touches. */
  paths: string[];
  /** The command line, for exec. */
  command?: string;
  root: string;
  protectedPaths: ProtectedPaths;
  /** Keys the person allowed for this session. */
  allowed: ReadonlySet<string>;
};

/** Decides whether a tool call runs, asks, or is refused. */
export function decide(check: Check): Decision {
  const base = modeAction(check.mode, check.permission);
  if (base === "deny") {
    return { action: "deny", reason: `${check.mode} mode does not allow ${describe(check.permission)}`, always: null };
  }
  const guarded = check.paths.find((p) => isProtected(p, check.root, check.protectedPaths));
  if (guarded) return { action: "ask", reason: `${guarded} is a protected path`, always: null };
  const outside = check.paths.find((p) => !isInside(p, check.root));
  if (outside) {
    const key = `${check.permission}:outside`;
    if (check.allowed.has(key)) return { action: "allow", reason: "allowed for this session", always: null };
    return {
      action: "ask",
      reason: `${outside} is outside the project`,
      always: { key, label: `${describe(check.permission)} outside the project, for this session` },
    };
  }
  if (base === "allow") return { action: "allow", reason: `${check.mode} mode`, always: null };
  const always = alwaysFor(check);
  if (always && check.allowed.has(always.key)) return { action: "allow", reason: "allowed for this session", always: null };
  return { action: "ask", reason: `${check.mode} mode asks before ${describe(check.permission)}`, always };
}

function describe(permission: PermissionClass): string {
  if (permission === "write") return "changing files";
  if (permission === "exec") return "running commands";
  if (permission === "read") return "reading files";
  return "this";
}

/** What "for this session" remembers: a command's program (`npm …`), or writes in general. */
function alwaysFor(check: Check): { key: string; label: string } | null {
  if (check.permission === "exec") {
    const program = commandProgram(check.command ?? "");
    if (!program) return null;
    return { key: `exec:${program}`, label: `${program} commands, for this session` };
  }
  if (check.permission === "write") return { key: "write:project", label: "file changes in the project, for this session" };
  return null;
}

/**
 * The program a command line runs, when it is one simple command: `npm test` → npm. A line that
 * chains, pipes, substitutes or redirects gets null, so "always" is never offered for it.
 */
export function commandProgram(command: string): string | null {
  const line = command.trim();
  if (!line || /[;&|`$<>(){}\n]/.test(line)) return null;
  const words = line.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  const first = words[0];
  if (!first || /^(sudo|env|xargs|nohup|eval|exec|sh|bash|zsh|fish|rm)$/.test(first)) return null;
  return first;
}
