import { existsSync, readdirSync, statSync } from "node:fs";
import { realOr } from "../real-path.ts";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../config/paths.ts";
import { projectRoot } from "../engine/engine.ts";
import type { Remote } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { trustedDirs, trustedRootOf } from "../store/trust.ts";
import { isInside } from "../paths.ts";

/** Whether session/new would accept a directory, and if not, why (a sentence). */
export type Verdict = { accepted: true } | { accepted: false; reason: string };

/** The remote roots, absolute and with symlinks resolved where they exist. */
export function rootsOf(remote: Remote): string[] {
  return remote.roots.map((r) => realOr(resolve(expandHome(r))));
}


/** Whether a path — `..` resolved and symlinks followed — is inside one of the remote roots. */
export function insideRoots(path: string, remote: Remote): boolean {
  const target = realOr(resolve(path));
  return rootsOf(remote).some((root) => isInside(target, root));
}

/**
 * Whether the web may have a stored session: its directory by `judge`, and its project root too
 * when that is above it (its AGENTS.md, its commands). Null when it may, else the sentence why not.
 */
export function sessionRefusal(session: { id: string; cwd: string; root: string }, remote: Remote, db: Db): string | null {
  const verdict = judge(session.cwd, remote, db);
  if (!verdict.accepted) return verdict.reason;
  if (session.root === session.cwd) return null;
  if (!insideRoots(session.root, remote)) return `session ${session.id}'s project ${session.root} is outside the device's remote roots`;
  const rootVerdict = judge(session.root, remote, db);
  if (!rootVerdict.accepted) {
    return `session ${session.id}'s project root ${session.root} is not one the web may open (${rootVerdict.reason}): trust it on the device, or start a new session`;
  }
  return null;
}

/** The rule session/new applies on the link: inside remote.roots, and trusted when require_trust. */
export function judge(path: string, remote: Remote, db: Db): Verdict {
  if (!isAbsolute(path)) return { accepted: false, reason: `${path} is not an absolute path` };
  if (!existsSync(path) || !statSync(path).isDirectory()) return { accepted: false, reason: `${path} is not an existing directory` };
  const target = realOr(path);
  const roots = rootsOf(remote);
  if (roots.length === 0) return { accepted: false, reason: "remote work is off on this device (remote.roots is empty)" };
  if (!roots.some((root) => isInside(target, root))) {
    return { accepted: false, reason: `${path} is outside the device's remote roots (${remote.roots.join(", ")})` };
  }
  if (remote.require_trust && !trustedRootOf(db, target)) {
    return { accepted: false, reason: `${path} is not in a trusted project: run lembas trust ${path} on the device` };
  }
  return { accepted: true };
}

/**
 * A link session's project root: the git top-level above cwd only when session/new would accept it
 * too (inside the roots, trusted when require_trust); else cwd itself. A repository at ~, or roots
 * that are one, must not make an untrusted directory the project (its AGENTS.md, its commands).
 */
export function linkRoot(cwd: string, remote: Remote, db: Db): string {
  const top = projectRoot(cwd);
  return top === cwd || judge(top, remote, db).accepted ? top : cwd;
}

export type Dir = { path: string; name: string; accepted: boolean; reason?: string };

function dirEntry(path: string, remote: Remote, db: Db): Dir {
  const verdict = judge(path, remote, db);
  return { path, name: basename(path) || path, accepted: verdict.accepted, ...(verdict.accepted ? {} : { reason: verdict.reason }) };
}

/** _lembas/directories without a path: the roots and every trusted directory inside them. */
export function places(remote: Remote, db: Db): { path: ""; places: Dir[] } {
  const roots = rootsOf(remote);
  const found = new Set<string>(roots.filter((r) => existsSync(r)));
  for (const stored of trustedDirs(db)) {
    const dir = realOr(stored);
    if (roots.some((r) => isInside(dir, r))) found.add(dir);
  }
  return { path: "", places: [...found].sort().map((p) => dirEntry(p, remote, db)) };
}

/** _lembas/directories with a path (absolute, inside the roots): it, its parent and its subdirectories. */
export function listing(path: string, remote: Remote, db: Db): Dir & { parent: string | null; entries: Dir[]; error?: string } {
  const self = dirEntry(path, remote, db);
  const roots = rootsOf(remote);
  const target = realOr(path);
  const parentPath = dirname(target);
  const parent = roots.some((r) => isInside(parentPath, r)) && target !== parentPath ? parentPath : null;
  try {
    const entries = readdirSync(target, { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDir(join(target, e.name))))
      .filter((e) => !e.name.startsWith("."))
      .map((e) => dirEntry(join(target, e.name), remote, db))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { ...self, parent, entries };
  } catch (error) {
    return { ...self, parent, entries: [], error: `cannot list ${path}: ${(error as { code?: string }).code ?? "error"}` };
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
