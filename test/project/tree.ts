import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];

/** A fresh temp directory (its real path), removed by {@link cleanup}. */
export function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "lembas-files-")));
  made.push(dir);
  return dir;
}

/** Writes `files` (path → content; `{ link }` for a symlink) below `root`. */
export function writeFiles(root: string, files: Record<string, string | { link: string }>): string {
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    if (typeof content === "string") writeFileSync(path, content);
    else symlinkSync(content.link, path);
  }
  return root;
}

export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
