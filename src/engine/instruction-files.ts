import { existsSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isInside } from "../paths.ts";

/** All instruction files together are cut here, so that a huge AGENTS.md cannot fill the context. */
export const MAX_INSTRUCTIONS = 64 * 1024;

export type InstructionFile = { label: string; text: string };

/**
 * The instruction files of a session, most general first: the config dir's AGENTS.md, then one
 * file per directory from the project root down to the working directory (AGENTS.md, else
 * CLAUDE.md). Together cut at 64 KiB; the files past the cut are left out, and the cut says so.
 */
export function instructionFiles(root: string, cwd: string, configDir: string): InstructionFile[] {
  const found: InstructionFile[] = [];
  const global = readText(join(configDir, "AGENTS.md"));
  if (global) found.push({ label: `${join(configDir, "AGENTS.md")} (the person's, for every project)`, text: global });
  for (const dir of dirsDown(root, cwd)) {
    const name = ["AGENTS.md", "CLAUDE.md"].find((n) => existsSync(join(dir, n)));
    if (!name) continue;
    const text = readText(join(dir, name));
    if (text) found.push({ label: relative(root, join(dir, name)), text });
  }
  return capped(found);
}

/** The root, then each directory below it down to cwd (cwd outside root: the root alone). */
function dirsDown(root: string, cwd: string): string[] {
  if (!isInside(cwd, root)) return [root];
  const rel = relative(root, cwd);
  const dirs = [root];
  if (!rel) return dirs;
  let dir = root;
  for (const part of rel.split(sep)) {
    dir = join(dir, part);
    dirs.push(dir);
  }
  return dirs;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

function capped(files: InstructionFile[]): InstructionFile[] {
  let left = MAX_INSTRUCTIONS;
  const kept: InstructionFile[] = [];
  for (const file of files) {
    if (left <= 0) break;
    if (file.text.length <= left) {
      kept.push(file);
      left -= file.text.length;
      continue;
    }
    kept.push({ label: file.label, text: `${file.text.slice(0, left)}\n[… cut: the instruction files are limited to 64 KiB in all]` });
    left = 0;
  }
  return kept;
}
