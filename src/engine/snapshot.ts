import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The most a project's shadow store may hold before it is dropped and started afresh. */
export const MAX_STORE_BYTES = 1024 * 1024 * 1024;

/**
 * A shadow git object store per project, outside the project (in the state dir), used only to see
 * what a shell command changed: a tree before, a tree after, their difference. The project's own
 * .git is never touched. Attributes turn off every filter and line-ending conversion so that the
 * blobs are the files byte for byte. Needs git on PATH; without it, commands are not undoable.
 */
export class ProjectSnapshot {
  private ready: Promise<boolean> | null = null;

  constructor(
    readonly gitDir: string,
    readonly root: string,
    /** Each session keeps its own index, so two sessions on one project never share a staging area. */
    private readonly indexName = "index",
  ) {}

  static dirFor(stateDir: string, root: string): string {
    const hash = new Bun.CryptoHasher("sha256").update(root).digest("hex").slice(0, 24);
    return join(stateDir, "snapshots", `${hash}.git`);
  }

  /** The tree id of the project as it is now, or null when git is unavailable or fails. */
  async tree(): Promise<string | null> {
    if (!(await this.init())) return null;
    // Ignored files (node_modules, build output, .env) are left out, as git leaves them out: a
    // command's changes to them are not undoable, and the store does not fill with build output.
    const add = await this.git(["add", "--all", "--ignore-errors", "--", "."], true);
    if (add === null) return null;
    const tree = await this.git(["write-tree"]);
    return tree?.trim() || null;
  }

  /** Paths (relative to the root) that differ between two trees. */
  async changed(before: string, after: string): Promise<string[]> {
    if (before === after) return [];
    const out = await this.git(["diff-tree", "-r", "-z", "--no-renames", "--name-only", before, after]);
    if (!out) return [];
    return out.split("\0").filter(Boolean);
  }

  /** A file's bytes and mode in a tree, or null when the tree did not have it. */
  async file(tree: string, path: string): Promise<{ content: Uint8Array; mode: number } | null> {
    const entry = await this.git(["ls-tree", "-z", tree, "--", path]);
    const match = entry?.match(/^(\d+) blob ([0-9a-f]+)\t/);
    if (!match?.[1] || !match[2]) return null;
    const proc = Bun.spawn(["git", ...this.base(), "cat-file", "blob", match[2]], { stdout: "pipe", stderr: "ignore", env: this.env() });
    const content = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
    if ((await proc.exited) !== 0) return null;
    return { content, mode: match[1] === "100755" ? 0o755 : 0o644 };
  }

  /**
   * Keeps the store bounded: its objects only serve to tell what a command changed (the pre-images
   * that undo needs are copied to the database at once), so a store past `maxBytes` is dropped whole
   * and the next snapshot starts afresh. Returns whether it was dropped.
   */
  async bound(maxBytes = MAX_STORE_BYTES): Promise<boolean> {
    if (!existsSync(join(this.gitDir, "HEAD"))) return false;
    const counts = await this.git(["count-objects", "-v"]);
    if (!counts) return false;
    const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, "m").exec(counts)?.[1] ?? 0);
    if ((kib("size") + kib("size-pack")) * 1024 <= maxBytes) return false;
    this.remove();
    this.ready = null;
    return true;
  }

  /** Removes the object store (its sessions are gone). */
  remove(): void {
    rmSync(this.gitDir, { recursive: true, force: true });
  }

  private init(): Promise<boolean> {
    this.ready ??= (async () => {
      if (!Bun.which("git")) return false;
      if (existsSync(join(this.gitDir, "HEAD"))) return true;
      mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
      const ok = await this.git(["init", "--quiet", "--bare", this.gitDir], false, false);
      if (ok === null) return false;
      mkdirSync(join(this.gitDir, "info"), { recursive: true });
      writeFileSync(join(this.gitDir, "info", "attributes"), "* -text -eol -filter -ident -diff -working-tree-encoding\n");
      for (const [key, value] of [
        ["core.autocrlf", "false"],
        ["core.safecrlf", "false"],
        ["core.fileMode", "true"],
        ["gc.auto", "0"],
      ] as const) {
        await this.git(["config", key, value]);
      }
      return true;
    })();
    return this.ready;
  }

  private base(): string[] {
    return ["--git-dir", this.gitDir, "--work-tree", this.root, "-c", "core.hooksPath=/dev/null"];
  }

  private env(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
    }
    env.GIT_INDEX_FILE = join(this.gitDir, this.indexName);
    env.GIT_CONFIG_NOSYSTEM = "1";
    env.GIT_TERMINAL_PROMPT = "0";
    return env;
  }

  private async git(args: string[], tolerant = false, withBase = true): Promise<string | null> {
    const proc = Bun.spawn(["git", ...(withBase ? this.base() : []), ...args], {
      cwd: this.root,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
      env: this.env(),
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0 && !tolerant) return null;
    return out;
  }
}
