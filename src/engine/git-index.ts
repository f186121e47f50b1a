import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/** What the project's git index says of a tracked file: its blob, and the file's stat when it was added. */
export type IndexEntry = { sha: string; ctimeSec: number; ctimeNsec: number; mtimeSec: number; mtimeNsec: number; ino: number; size: number };

/** The index as it was at one moment: its bytes, parsed on first use; `mtimeNs` tells racily clean entries. */
export class IndexSnapshot {
  private parsed: Map<string, IndexEntry> | null = null;

  constructor(
    readonly key: string,
    private readonly bytes: Uint8Array,
    readonly mtimeNs: bigint,
  ) {}

  entries(): Map<string, IndexEntry> {
    this.parsed ??= parseIndex(this.bytes);
    return this.parsed;
  }
}

/** The project's git directory when the root is a work tree's top (`.git` a directory or a `gitdir:` file). */
export function gitDirOf(root: string): string | null {
  const dotGit = join(root, ".git");
  try {
    const stat = lstatSync(dotGit);
    if (stat.isDirectory()) return existsSync(join(dotGit, "index")) || existsSync(join(dotGit, "HEAD")) ? dotGit : null;
    if (!stat.isFile()) return null;
    const line = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!line) return null;
    return isAbsolute(line) ? line : resolve(root, line);
  } catch {
    return null;
  }
}

/** Reads the index again only when its file changed since `last`; null when there is none. */
export function readIndex(gitDir: string, last: IndexSnapshot | null): IndexSnapshot | null {
  const file = join(gitDir, "index");
  try {
    const stat = statSync(file, { bigint: true });
    const key = `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    if (last?.key === key) return last;
    return new IndexSnapshot(key, readFileSync(file), stat.mtimeNs);
  } catch {
    return null;
  }
}

/**
 * Parses index versions 2 to 4 (git's documented format): path → blob and stat, stage 0 only, without
 * entries that are not in the work tree as their blob (intent-to-add, skip-worktree). Anything it
 * cannot read gives an empty map: the index is then simply not used.
 */
export function parseIndex(bytes: Uint8Array): Map<string, IndexEntry> {
  const entries = new Map<string, IndexEntry>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || Buffer.from(bytes.subarray(0, 4)).toString("latin1") !== "DIRC") return entries;
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return entries;
  const count = view.getUint32(8);
  let at = 12;
  let previous: Uint8Array = new Uint8Array(0);
  try {
    for (let i = 0; i < count; i++) {
      const start = at;
      const entry = {
        ctimeSec: view.getUint32(at),
        ctimeNsec: view.getUint32(at + 4),
        mtimeSec: view.getUint32(at + 8),
        mtimeNsec: view.getUint32(at + 12),
        ino: view.getUint32(at + 20),
        size: view.getUint32(at + 36),
        sha: Buffer.from(bytes.subarray(at + 40, at + 60)).toString("hex"),
      };
      const flags = view.getUint16(at + 60);
      at += 62;
      let extended = 0;
      if (flags & 0x4000) {
        extended = view.getUint16(at);
        at += 2;
      }
      let path: Uint8Array;
      if (version === 4) {
        const [strip, read] = varint(bytes, at);
        at += read;
        const end = bytes.indexOf(0, at);
        path = Buffer.concat([previous.subarray(0, previous.length - strip), bytes.subarray(at, end)]);
        at = end + 1;
      } else {
        const end = bytes.indexOf(0, at);
        path = bytes.subarray(at, end);
        // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
        at = start + Math.floor((end - start + 8) / 8) * 8;
      }
      previous = path;
      const stage = (flags >> 12) & 3;
      const notInTree = (extended & 0x6000) !== 0;
      if (stage === 0 && !notInTree) entries.set(Buffer.from(path).toString(), entry);
    }
  } catch {
    return new Map();
  }
  return entries;
}

/** Git's offset varint (index v4's prefix lengths): the value and how many bytes it took. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let i = at;
  let byte = bytes[i++] ?? 0;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = bytes[i++] ?? 0;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return [value, i - at];
}

/** A git that has not answered by then is stopped (a hung filesystem, a lock): what undo lacks is said. */
const BLOBS_TIMEOUT_MS = 60_000;

/**
 * Reads blobs from the project's object store with `git cat-file --batch`, which only reads (no
 * index refresh, no lock). A blob that is missing is absent from the answer.
 */
export async function readBlobs(gitDir: string, shas: readonly string[]): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (shas.length === 0 || !Bun.which("git")) return found;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  env.GIT_OPTIONAL_LOCKS = "0";
  // A partial clone would otherwise fetch a missing blob from the network.
  env.GIT_NO_LAZY_FETCH = "1";
  const proc = Bun.spawn(["git", "--git-dir", gitDir, "cat-file", "--batch"], { stdin: "pipe", stdout: "pipe", stderr: "ignore", env });
  const timer = setTimeout(() => proc.kill(), BLOBS_TIMEOUT_MS);
  let out: Uint8Array;
  try {
    // Read while writing: git stops reading its input once its output pipe is full.
    const reading = new Response(proc.stdout).arrayBuffer();
    // A git that exits early (not a repository) closes its input: the write fails, and what it printed counts.
    const writing = (async () => {
      // write() may hand back a promise of its own, which rejects on its own when git has gone.
      await proc.stdin.write(`${shas.join("\n")}\n`);
      await proc.stdin.end();
    })().catch(() => undefined);
    out = new Uint8Array(await reading);
    await writing;
    await proc.exited;
  } catch {
    return found;
  } finally {
    clearTimeout(timer);
  }
  let at = 0;
  for (const sha of shas) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const header = Buffer.from(out.subarray(at, eol)).toString();
    at = eol + 1;
    const match = /^([0-9a-f]+) blob (\d+)$/.exec(header);
    if (!match) continue;
    const size = Number(match[2]);
    const blob = out.slice(at, at + size);
    at += size + 1;
    // Only bytes that are the blob asked for are used (a misread index would ask for others).
    if (blobId(blob) === sha) found.set(sha, blob);
  }
  return found;
}

/** A blob's object id in a SHA-1 repository. */
export function blobId(content: Uint8Array): string {
  return new Bun.CryptoHasher("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}
