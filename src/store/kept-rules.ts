import type { Db } from "./db.ts";

/** A rule kept from a card: for one project (root) or everywhere (root null), until expires_at (null: never). */
export type KeptRule = {
  id: string;
  action: "allow" | "deny";
  rule: string;
  root: string | null;
  session_id: string | null;
  created_at: number;
  expires_at: number | null;
};

/** The kept rules that hold at ROOT at `now`: the project's and those kept everywhere, newest first. */
export function keptRulesFor(db: Db, root: string, now: number): KeptRule[] {
  return db
    .query<KeptRule, [string, number]>(
      "SELECT * FROM kept_rules WHERE (root IS NULL OR root = ?) AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, id",
    )
    .all(root, now);
}

/** Every kept rule, expired ones too (a listing says which), newest first. */
export function listKeptRules(db: Db): KeptRule[] {
  return db.query<KeptRule, []>("SELECT * FROM kept_rules ORDER BY created_at DESC, id").all();
}

/** Keeps a rule; the same rule kept again for the same place replaces the old one (its expiry too). */
export function keepRule(db: Db, rule: Omit<KeptRule, "id" | "created_at">, now = Date.now()): KeptRule {
  const kept: KeptRule = { ...rule, id: `rule_${randomHex(4)}`, created_at: now };
  db.transaction(() => {
    db.query("DELETE FROM kept_rules WHERE action = ? AND rule = ? AND root IS ?").run(rule.action, rule.rule, rule.root);
    db.query("INSERT INTO kept_rules (id, action, rule, root, session_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
      kept.id, kept.action, kept.rule, kept.root, kept.session_id, kept.created_at, kept.expires_at,
    );
  })();
  return kept;
}

/** Takes a kept rule away; false when there is none with that id. */
export function revokeKeptRule(db: Db, id: string): boolean {
  return db.query("DELETE FROM kept_rules WHERE id = ?").run(id).changes > 0;
}

/** Random bytes as hex, from the global Web Crypto: node:crypto costs a fresh process more to load than a whole hello-world's start. */
function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
