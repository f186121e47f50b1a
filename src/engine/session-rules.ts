import { z } from "zod";
import { lazily } from "../lazy.ts";
import { type PermissionsConfig, parseRule, ruleOf } from "../config/permission-rules.ts";
import type { SessionBus } from "../bus/index.ts";
import type { Db } from "../store/db.ts";
import { keepRule, keptRulesFor } from "../store/kept-rules.ts";
import type { KeepChoice } from "./interaction.ts";
import { ProjectSettings } from "./project-settings.ts";
import type { ActiveRule } from "./rule-match.ts";

/** A settings file's permissions, made the first time a project has one. */
const settingsSchema = lazily(() =>
  z.looseObject({
    permissions: z.looseObject({ allow: z.array(z.string()).optional(), ask: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).optional(),
  }),
);

/**
 * The rules in force for a session at ROOT: config.yaml's, the project's settings files' (which may
 * only restrict: their allow is left out, said in `notes`), and those kept from cards for this
 * project or everywhere that have not expired at `now`. `unread`: the settings files that do not
 * read at all, which the session's hooks say once (they name hooks and permissions both).
 */
export function rulesInForce(
  root: string,
  config: { permissions: PermissionsConfig },
  db: Db,
  now = Date.now(),
  settings = new ProjectSettings(root),
): { rules: ActiveRule[]; notes: string[]; unread: string[] } {
  const rules: ActiveRule[] = [];
  const notes: string[] = [];
  const unread: string[] = [];
  for (const action of ["deny", "ask", "allow"] as const) {
    for (const text of config.permissions[action]) {
      const rule = ruleOf(text);
      if (rule) rules.push({ action, rule, source: { kind: "config", label: "config.yaml" } });
    }
  }
  for (const read of settings.files()) {
    const { file } = read;
    if ("problem" in read) {
      unread.push(read.problem);
      continue;
    }
    const parsed = settingsSchema().safeParse(read.json);
    if (!parsed.success) {
      notes.push(`${read.path}: permissions must be {allow, ask, deny}, each a list of rules: left out`);
      continue;
    }
    const permissions = parsed.data.permissions ?? {};
    for (const action of ["deny", "ask"] as const) {
      for (const text of permissions[action] ?? []) {
        const rule = parseRule(text);
        if ("error" in rule) notes.push(`${file}: permissions.${action}: ${rule.error}: left out`);
        else rules.push({ action, rule: rule.rule, source: { kind: "project-file", label: file } });
      }
    }
    const allows = permissions.allow ?? [];
    if (allows.length > 0) {
      notes.push(`${file}: permissions.allow (${allows.join(", ")}) is ignored: a project's files may only restrict (ask, deny); allow in config.yaml or from a card`);
    }
  }
  for (const kept of keptRulesFor(db, root, now)) {
    const rule = ruleOf(kept.rule);
    if (!rule) continue;
    const label = kept.root === null ? "kept from a card, everywhere" : "kept from a card, for this project";
    rules.push({ action: kept.action, rule, source: { kind: "kept", label, id: kept.id, expiresAt: kept.expires_at, scope: kept.root ?? "everywhere" } });
  }
  return { rules, notes, unread };
}

const DAY = 24 * 60 * 60 * 1000;
const LASTS: Record<KeepChoice["expires"], number | null> = { day: DAY, week: 7 * DAY, never: null };

/** Keeps rules from a card; what is said of each (where it holds, until when, how to take it back). */
export function keepRules(
  db: Db,
  kept: { action: "allow" | "deny"; rules: string[]; choice: KeepChoice; root: string; sessionId: string },
  now = Date.now(),
): string[] {
  const lasts = LASTS[kept.choice.expires];
  const expiresAt = lasts === null ? null : now + lasts;
  return kept.rules.map((rule) => {
    const row = keepRule(db, { action: kept.action, rule, root: kept.choice.scope === "project" ? kept.root : null, session_id: kept.sessionId, expires_at: expiresAt }, now);
    const where = kept.choice.scope === "project" ? `for ${kept.root}` : "everywhere";
    const until = expiresAt === null ? "until you revoke it" : `until ${new Date(expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC`;
    return `kept ${kept.action === "allow" ? "Allow" : "Deny"} ${rule} ${where}, ${until} (${row.id}; lembas permissions revoke ${row.id} takes it back)`;
  });
}

/** What a card's "keep" does for a call (tool-runner.ts's `keep`): the rules kept, each said. */
export type KeepRules = (action: "allow" | "deny", rules: string[], choice: KeepChoice) => void;

/** The keep of a session's calls and of its helpers' alike: rules kept in the store, each said on the session's bus. */
export function ruleKeeper(db: Db, bus: SessionBus, session: { root: string; id: string }): KeepRules {
  return (action, rules, choice) => {
    for (const message of keepRules(db, { action, rules, choice, root: session.root, sessionId: session.id })) bus.emit({ type: "notice", level: "info", message });
  };
}
