import { readFileSync, statSync } from "node:fs";
import type { ReadState } from "../tools/tool.ts";

/** A file as it was when the model last saw it (read it, or wrote it itself). */
type Stamp = { size: number; mtimeNs: bigint; ino: bigint; hash: bigint | null; takenAt: number };
/** A file as another holder gave it (an editor's buffer): its text alone says what the model saw. */
type HeldStamp = { held: true; hash: bigint };

/** Files larger than this are stamped by size, mtime and inode alone (hashing them costs too much). */
const HASH_MAX_BYTES = 16 * 1024 * 1024;
/**
 * A stamp taken this soon after the file's mtime cannot tell a later change of the same size in
 * the same clock tick (coarse mtimes: FAT, some network mounts): such a file is hashed to be sure.
 */
const RACY_MS = 3000;

/**
 * The files the model has seen in a session, each with a stamp of what it saw: so that a write
 * or an edit to a file changed since (by the person, or by a command) is refused until the model
 * reads it again, and the person's own edits are never written over from a stale copy.
 */
export class ReadLedger {
  private readonly stamps = new Map<string, Stamp | HeldStamp>();

  /**
   * Notes that the model has seen a file (absolute path). `content` is what it saw, when the
   * caller has it (a write's new text): the file is then not read again to be hashed. From "held":
   * the content is what the file's other holder gave (an editor's buffer), not the disk's.
   */
  mark(path: string, content?: string | Uint8Array, from: "disk" | "held" = "disk"): void {
    if (from === "held" && content !== undefined) {
      this.stamps.set(path, { held: true, hash: hashOf(content) });
      return;
    }
    const stamp = stampOf(path, content);
    if (stamp) this.stamps.set(path, stamp);
    else this.stamps.delete(path);
  }

  /**
   * Whether the model has seen the file as it is now. `now`: its text as the caller just read it
   * (from the disk or its other holder), compared with what the model saw; without it the disk is.
   */
  state(path: string, now?: string): ReadState {
    const seen = this.stamps.get(path);
    if (!seen) return "unread";
    if (now !== undefined && seen.hash !== null) return hashOf(now) === seen.hash ? "current" : "changed";
    if ("held" in seen) return hashFile(path) === seen.hash ? "current" : "changed";
    return this.diskState(path, seen);
  }

  private diskState(path: string, seen: Stamp): ReadState {
    const now = statOf(path);
    if (!now) return "changed";
    const same = now.size === seen.size && now.mtimeNs === seen.mtimeNs && now.ino === seen.ino;
    if (same && !racy(seen)) return "current";
    // Touched, written back as it was, or stamped in the file's own clock tick: the bytes decide.
    if (seen.hash === null) return same ? "current" : "changed";
    if (now.size !== seen.size || now.size > HASH_MAX_BYTES) return "changed";
    const hash = hashFile(path);
    if (hash !== seen.hash) return "changed";
    this.stamps.set(path, { ...now, hash, takenAt: Date.now() });
    return "current";
  }
}

function racy(stamp: Stamp): boolean {
  return stamp.takenAt - Number(stamp.mtimeNs / 1_000_000n) < RACY_MS;
}

function statOf(path: string): Omit<Stamp, "hash" | "takenAt"> | null {
  try {
    const info = statSync(path, { bigint: true });
    if (!info.isFile()) return null;
    return { size: Number(info.size), mtimeNs: info.mtimeNs, ino: info.ino };
  } catch {
    return null;
  }
}

function stampOf(path: string, content?: string | Uint8Array): Stamp | null {
  const info = statOf(path);
  if (!info) return null;
  const takenAt = Date.now();
  if (info.size > HASH_MAX_BYTES) return { ...info, hash: null, takenAt };
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  // What the caller says it wrote is hashed only when its size agrees with the file's.
  const hash = bytes && bytes.length === info.size ? hashOf(bytes) : hashFile(path);
  return { ...info, hash, takenAt };
}

function hashOf(content: string | Uint8Array): bigint {
  return BigInt(Bun.hash.wyhash(typeof content === "string" ? Buffer.from(content) : content));
}

function hashFile(path: string): bigint | null {
  try {
    return BigInt(Bun.hash.wyhash(readFileSync(path)));
  } catch {
    return null;
  }
}
