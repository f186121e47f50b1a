import type { PermissionsConfig } from "../config/permission-rules.ts";
import type { Db } from "../store/db.ts";
import { listKeptRules, revokeKeptRule } from "../store/kept-rules.ts";
import { rulesInForce } from "./session-rules.ts";

/**
 * The permission rules, as `lembas permissions` and `/permissions` list them: each with what it
 * does, where it holds, where it comes from and when it expires. Kept rules of every project are
 * listed (expired ones said so), so that each can be revoked by its id.
 */
export function ruleLines(config: { permissions: PermissionsConfig }, db: Db, root: string, now = Date.now()): string[] {
  const inForce = rulesInForce(root, config, db, now);
  const { rules } = inForce;
  const notes = [...inForce.unread, ...inForce.notes];
  const rows: [string, string, string, string][] = [];
  for (const r of rules) {
    if (r.source.kind === "kept") continue;
    const where = r.source.kind === "config" ? "everywhere" : `in ${root}`;
    rows.push([r.action, r.rule.text, `${where}, from ${r.source.label}`, "never expires"]);
  }
  for (const kept of listKeptRules(db)) {
    const where = kept.root === null ? "everywhere" : `in ${kept.root}`;
    const expiry = kept.expires_at === null ? "never expires" : `${kept.expires_at <= now ? "expired" : "expires"} ${stamp(kept.expires_at)}`;
    rows.push([kept.action, kept.rule, `${where}, kept from a card ${stamp(kept.created_at)} (${kept.id})`, expiry]);
  }
  if (rows.length === 0) {
    return [
      "No permission rules. Add them to config.yaml (permissions: {allow: [Bash(npm test)], ask: [], deny: [Read(~/.ssh/**)]}),",
      "or keep an approval beyond the session from its card.",
      ...notes.map((n) => `note: ${n}`),
    ];
  }
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const lines = rows.map(([action, rule, where, expiry]) => `${action.padEnd(widths[0] ?? 0)}  ${rule.padEnd(widths[1] ?? 0)}  ${where} · ${expiry}`);
  return [...lines, ...notes.map((n) => `note: ${n}`)];
}

/**
 * Takes back a rule kept from a card, by its id, as `lembas permissions revoke` and `/permissions
 * revoke` do. A rule from config.yaml or a project's file cannot be revoked: the answer says where
 * to edit it. `revoked` is false when nothing was taken back.
 */
export function revokeRule(config: { permissions: PermissionsConfig }, db: Db, root: string, id: string): { revoked: boolean; text: string } {
  if (revokeKeptRule(db, id)) return { revoked: true, text: `revoked ${id}` };
  const written = rulesInForce(root, config, db).rules.find((r) => r.source.kind !== "kept" && r.rule.text === id);
  if (written) {
    const file = written.source.kind === "config" ? "config.yaml" : `${root}/${written.source.label}`;
    return { revoked: false, text: `${id} is written in ${file} (permissions.${written.action}): edit it there; only rules kept from a card are revoked by id` };
  }
  return { revoked: false, text: `there is no kept rule ${id}: lembas permissions list (or /permissions) shows their ids` };
}

const stamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
