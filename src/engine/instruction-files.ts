import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isInside } from "../paths.ts";
import { protection, protectedPaths } from "../project/protected.ts";
import { realOr } from "../real-path.ts";

/** All instruction files together are cut here, in UTF-8 bytes, so that a huge AGENTS.md cannot fill the context. */
export const MAX_INSTRUCTIONS = 64 * 1024;

export type InstructionFile = { label: string; text: string };

/**
 * The instruction files of a session, most general first: the config dir's AGENTS.md, then one
 * file per directory from the project root down to the working directory (AGENTS.md, else
 * CLAUDE.md, also where the AGENTS.md cannot be read). Together cut at 64 KiB of UTF-8; the files
 * past the cut are left out, and the cut says so.
 */
export function instructionFiles(root: string, cwd: string, configDir: string): InstructionFile[] {
  const found: InstructionFile[] = [];
  const global = readText(join(configDir, "AGENTS.md"), null);
  if (global) found.push({ label: `${join(configDir, "AGENTS.md")} (the person's, for every project)`, text: global });
  for (const dir of dirsDown(root, cwd)) {
    // An AGENTS.md that cannot be read (a directory, a FIFO, a link out of the project) gives way to CLAUDE.md.
    for (const name of ["AGENTS.md", "CLAUDE.md"]) {
      const text = existsSync(join(dir, name)) ? readText(join(dir, name), root) : null;
      if (!text) continue;
      found.push({ label: relative(root, join(dir, name)), text });
      break;
    }
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

/** Secrets by their built-in names (.env*, keys, .ssh): an instruction file that leads to one is not read. */
const SECRETS = protectedPaths([], []);

/**
 * An instruction file's text, its first bytes only (a huge file is cut anyway). Only a regular
 * file: a FIFO would block the session's start for ever, a device never end. A project's file
 * (ROOT given) is read only where it really is inside the project and no secret: the project may
 * be a clone whose AGENTS.md is a symlink to ~/.ssh/id_rsa, and the text goes to the model.
 */
function readText(file: string, root: string | null): string | null {
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return null;
    if (root !== null) {
      const real = realOr(file);
      const realRoot = realOr(root);
      if (!isInside(real, realRoot) || protection(real, realRoot, SECRETS) === "secret") return null;
    }
    return headOf(file).trim() || null;
  } catch {
    return null;
  }
}

/** The file's first bytes: twice what the cut keeps, room for white space trimmed off its start. */
function headOf(file: string): string {
  const buffer = Buffer.alloc(MAX_INSTRUCTIONS * 2);
  const fd = openSync(file, "r");
  try {
    let got = 0;
    for (let n = 1; n > 0 && got < buffer.length; got += n) n = readSync(fd, buffer, got, buffer.length - got, null);
    return new TextDecoder().decode(buffer.subarray(0, got));
  } finally {
    closeSync(fd);
  }
}

function capped(files: InstructionFile[]): InstructionFile[] {
  let left = MAX_INSTRUCTIONS;
  const kept: InstructionFile[] = [];
  for (const file of files) {
    if (left <= 0) break;
    const bytes = Buffer.from(file.text, "utf8");
    if (bytes.length <= left) {
      kept.push(file);
      left -= bytes.length;
      continue;
    }
    kept.push({ label: file.label, text: `${bytes.subarray(0, charStart(bytes, left)).toString("utf8")}\n[… cut: the instruction files are limited to 64 KiB in all]` });
    left = 0;
  }
  return kept;
}

/** The last character boundary at or before `at`: a cut never splits a character. */
function charStart(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i > 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  return i;
}
