import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ProjectFiles } from "./project-files.ts";

/** Projects one engine follows at once; the least recently used goes past this many. */
const MAX_PROJECTS = 4;

/**
 * The projects one engine follows for undo (src/engine/project-files.ts), each once for all its
 * sessions, so that an edit tool's write reaches another session's open command window. Held by
 * the engine and handed to each turn's undo: two engines in one process follow theirs apart, and
 * one's stop closes only its own. lembas's state dir, if inside a project, is not followed.
 */
export class FollowedProjects {
  private readonly followed = new Map<string, ProjectFiles>();
  private swept = false;

  constructor(private readonly stateDir: string) {}

  /** The project's files as this engine follows them: followed from now on if they were not. */
  filesOf(root: string): ProjectFiles {
    const known = this.followed.get(root);
    if (known) {
      this.followed.delete(root);
      this.followed.set(root, known);
      return known;
    }
    const files = new ProjectFiles(root, { exclude: [this.stateDir] });
    this.followed.set(root, files);
    for (const [old, project] of this.followed) {
      if (this.followed.size <= MAX_PROJECTS) break;
      project.close();
      this.followed.delete(old);
    }
    return files;
  }

  /**
   * Tells the project's open command windows (another session's) of an edit tool's write. The write
   * goes on if this fails: such a window then counts it as its command's.
   */
  tell(root: string, tell: (files: ProjectFiles) => void): void {
    const files = this.followed.get(root);
    if (!files) return;
    try {
      tell(files);
    } catch {
      // said above: the write is not held up by what only refines another window
    }
  }

  /** Stops following a project (its last session is gone). */
  forget(root: string): void {
    this.followed.get(root)?.close();
    this.followed.delete(root);
  }

  /** Stops following every project (the engine stops): their inotify instances are closed. */
  forgetAll(): void {
    for (const files of this.followed.values()) files.close();
    this.followed.clear();
  }

  /**
   * Earlier versions kept a shadow git store per project in the state dir; it is no longer used. It
   * may be large: it is removed in the background, once, and the command does not wait for it.
   */
  sweepLegacySnapshots(): void {
    if (this.swept) return;
    this.swept = true;
    const dir = join(this.stateDir, "snapshots");
    if (!existsSync(dir)) return;
    rm(dir, { recursive: true, force: true }).catch(() => {
      // tried again by the next engine
    });
  }
}
