import { chmodSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { dirname, relative } from "node:path";
import { errorMessage } from "../errors.ts";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";
import { lstatOrNull, type StoredImage } from "../store/undo.ts";
import { isDirRel } from "./file-stat.ts";

const NOT_EMPTY = "it still holds files the undo did not remove (put there or changed since the turn), so it is left as it is";
const OUTSIDE = "its directory now leads outside the project (a symlink), so it is left as it is";

/**
 * A turn's directories as undo puts them back (their rows' paths end with a slash): each one it
 * removed is made again, even empty, and each one it made is removed once the files are back and it
 * is empty, deepest first. A directory that was there before the turn is never removed, nor one
 * that holds anything now, nor a symlink, nor the root (never recorded); nothing is followed
 * through a link out of the project. What was done is named; what was left, said with why.
 */
export class DirRestore {
  readonly removed: string[] = [];
  readonly putBack: string[] = [];
  private readonly made: StoredImage[];
  private readonly gone: StoredImage[];

  constructor(
    images: readonly StoredImage[],
    private readonly root: string,
    private readonly realRoot: string,
    /** Where what is left is said (undo's skipped). */
    private readonly skipped: { path: string; why: string }[],
  ) {
    const dirs = images.filter((image) => isDirRel(image.path));
    // A parent's path is a prefix of its children's: by length is shallowest first.
    this.gone = dirs.filter((image) => image.existed).sort((a, b) => a.path.length - b.path.length);
    this.made = dirs.filter((image) => !image.existed).sort((a, b) => b.path.length - a.path.length);
  }

  /** Before the files: each directory the turn removed whose place is free is made again, so its files go back into it with its mode. */
  putBackFree(): void {
    for (const image of this.gone) if (!image.refused && !lstatOrNull(pathOf(image))) this.attempt(image, () => this.makeAgain(image));
  }

  /** After the files: the directories still missing (a file the turn made stood in their place), then the empty ones the turn made. */
  finish(): void {
    for (const image of this.gone) this.attempt(image, () => this.putBackLeft(image));
    for (const image of this.made) this.attempt(image, () => this.removeIfEmpty(image));
  }

  private putBackLeft(image: StoredImage): string | null {
    const now = lstatOrNull(pathOf(image));
    if (now?.isDirectory()) return null;
    if (image.refused) return now ? null : image.refused;
    if (now) return "something else is in its place now, so it is left as it is";
    return this.makeAgain(image);
  }

  private makeAgain(image: StoredImage): string | null {
    const path = pathOf(image);
    if (!insideReal(dirname(path), this.realRoot)) return OUTSIDE;
    mkdirSync(path, { recursive: true });
    if (image.mode !== null) chmodSync(path, image.mode);
    this.putBack.push(this.named(image));
    return null;
  }

  private removeIfEmpty(image: StoredImage): string | null {
    const path = pathOf(image);
    const now = lstatOrNull(path);
    if (!now) return null;
    if (!now.isDirectory()) return "it is not a directory now, so it is left as it is";
    // Not known to be the turn's: said only when empty (else what it holds is said file by file).
    if (image.refused) return readdirSync(path).length > 0 ? null : image.refused;
    if (!insideReal(dirname(path), this.realRoot) || realOr(path) === this.realRoot) return OUTSIDE;
    try {
      // rmdir removes only an empty directory, whatever was put in it a moment ago.
      rmdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") return NOT_EMPTY;
      throw error;
    }
    this.removed.push(this.named(image));
    return null;
  }

  /** Runs one directory's step; what it left (or a throw) is said with the directory's name. */
  private attempt(image: StoredImage, step: () => string | null): void {
    let why: string | null;
    try {
      why = step();
    } catch (error) {
      why = `it could not be put back as it was: ${errorMessage(error)}`;
    }
    if (why) this.skipped.push({ path: this.shown(image), why });
  }

  /** How a skipped entry names it: with its slash, a directory among files. */
  private shown(image: StoredImage): string {
    return `${this.named(image)}/`;
  }

  /** How the lists of directories removed and put back name it (they hold only directories). */
  private named(image: StoredImage): string {
    return relative(this.root, pathOf(image));
  }
}

/** What undo did to directories, as clauses of its answer: "removed the empty directories build/out, build". */
export function dirsDone(restored: { removedDirs?: readonly string[]; putBackDirs?: readonly string[] }): string[] {
  const clause = (verb: string, dirs: readonly string[] = []) =>
    dirs.length === 0 ? [] : [`${verb} ${dirs.length === 1 ? "directory" : "directories"} ${dirs.join(", ")}`];
  return [...clause("put back the", restored.putBackDirs), ...clause("removed the empty", restored.removedDirs)];
}

function pathOf(image: StoredImage): string {
  return image.path.slice(0, -1);
}

/** Whether a directory, as the kernel would walk it (its nearest existing ancestor's real path), is inside the root. */
export function insideReal(dir: string, realRoot: string): boolean {
  let at = dir;
  while (!lstatOrNull(at)) {
    const up = dirname(at);
    if (up === at) return false;
    at = up;
  }
  return isInside(realOr(at), realRoot);
}
