import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Db } from "../store/db.ts";
import { forgetPreImages, hasPreImage, preImagesOf, readPreImage, recordPreImage, trimPreImages } from "../store/undo.ts";
import { ProjectSnapshot } from "./snapshot.ts";

/**
 * Keeps, for one turn, each file's content from before the turn first changed it: files the edit
 * tools name (beforeChange), and files a command created, changed or deleted (aroundCommand, by
 * comparing shadow-git trees taken before and after it). Only what the turn touched is kept.
 */
export class TurnUndo {
  /** Whether the store's size was checked this turn (once is enough). */
  private bounded = false;

  constructor(
    private readonly db: Db,
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly snapshot: ProjectSnapshot,
  ) {}

  beforeChange(path: string): void {
    if (hasPreImage(this.db, this.sessionId, this.turnId, path)) return;
    recordPreImage(this.db, this.sessionId, this.turnId, readPreImage(path));
  }

  async aroundCommand<T>(run: () => Promise<T>): Promise<T> {
    if (!this.bounded) {
      this.bounded = true;
      await this.snapshot.bound();
    }
    const before = await this.snapshot.tree();
    try {
      return await run();
    } finally {
      if (before) await this.recordChanges(before);
    }
  }

  private async recordChanges(before: string): Promise<void> {
    const after = await this.snapshot.tree();
    if (!after) return;
    for (const rel of await this.snapshot.changed(before, after)) {
      const path = join(this.snapshot.root, rel);
      if (hasPreImage(this.db, this.sessionId, this.turnId, path)) continue;
      const old = await this.snapshot.file(before, rel);
      recordPreImage(this.db, this.sessionId, this.turnId, {
        path,
        existed: old !== null,
        content: old?.content ?? null,
        mode: old?.mode ?? null,
      });
    }
    trimPreImages(this.db, this.sessionId);
  }
}

export type Restored = { files: string[]; skipped: string[] };

/** Puts back every file the turn changed, byte for byte, and deletes the files it created. */
export function restoreTurn(db: Db, sessionId: string, turnId: string, root: string): Restored {
  const files: string[] = [];
  const skipped: string[] = [];
  for (const image of preImagesOf(db, sessionId, turnId)) {
    const shown = relative(root, image.path) || image.path;
    if (!image.existed) {
      rmSync(image.path, { force: true });
      files.push(shown);
      continue;
    }
    if (image.content === null) {
      skipped.push(shown);
      continue;
    }
    mkdirSync(dirname(image.path), { recursive: true });
    const temp = `${image.path}.lembas-undo-${process.pid}`;
    writeFileSync(temp, image.content);
    if (image.mode !== null) chmodSync(temp, image.mode);
    renameSync(temp, image.path);
    files.push(shown);
  }
  forgetPreImages(db, sessionId, turnId);
  return { files, skipped };
}

export function snapshotFor(stateDir: string, root: string, sessionId?: string): ProjectSnapshot {
  return new ProjectSnapshot(ProjectSnapshot.dirFor(stateDir, root), root, sessionId ? `index-${sessionId}` : "index");
}

export function hasSnapshotDir(stateDir: string, root: string): boolean {
  return existsSync(ProjectSnapshot.dirFor(stateDir, root));
}
