import { statSync } from "node:fs";
import { errorMessage } from "../errors.ts";
import { loadConfig } from "./load.ts";
import type { Config } from "./schema.ts";

/** What a reading of config.yaml after the first came to: the file in force, or kept out and why. */
export type ConfigNews = { kind: "applied"; fixed: boolean } | { kind: "refused"; sentence: string };

/**
 * config.yaml as in force now, for a process that outlives an edit of it (the service, serve
 * --stdio, the terminal). `config` is the one object the process hands around: each of its keys,
 * read, gives the file's value as it is now, the file read again when its stamp (inode, size, times)
 * changed — one stat at most an event-loop turn, however many keys a step or a request reads. A
 * file that no longer validates leaves the last good one in force, and is said once to `onNews`'s
 * listeners (the service's log, the sessions' notices); the first reading still throws, as a
 * one-shot command's does.
 */
export class LiveConfig {
  readonly config: Config;
  private now: Config;
  private stamp: string | null;
  private looked = false;
  private refusal: string | null = null;
  private readonly listeners = new Set<(news: ConfigNews) => void>();

  constructor(private readonly file: string) {
    this.stamp = fileStamp(file);
    this.now = loadConfig(file);
    this.config = {} as Config;
    this.expose(this.now);
  }

  /** Tells `listener` of every later reading; returns how to stop. */
  onNews(listener: (news: ConfigNews) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The config in force, config.yaml read again first if it changed. */
  current(): Config {
    this.check();
    return this.now;
  }

  private check(): void {
    if (this.looked) return;
    this.looked = true;
    // Looked at again from the next turn of the event loop: a request or a step spans several.
    setImmediate(() => {
      this.looked = false;
    }).unref();
    const stamp = fileStamp(this.file);
    if (stamp === this.stamp) return;
    // Stamped before it is read: a write in between is read again at the next look.
    this.stamp = stamp;
    let next: Config;
    try {
      next = loadConfig(this.file);
    } catch (error) {
      const sentence = `${errorMessage(error)} — the config.yaml read before stays in force until it is fixed`;
      if (sentence === this.refusal) return;
      this.refusal = sentence;
      this.tell({ kind: "refused", sentence });
      return;
    }
    this.now = next;
    this.expose(next);
    const fixed = this.refusal !== null;
    this.refusal = null;
    this.tell({ kind: "applied", fixed });
  }

  /** Every key a reading has had becomes a key of `config` that reads the one in force. */
  private expose(read: Config): void {
    for (const key of Object.keys(read)) {
      if (Object.hasOwn(this.config, key)) continue;
      Object.defineProperty(this.config, key, { enumerable: true, get: () => (this.current() as Record<string, unknown>)[key] });
    }
  }

  private tell(news: ConfigNews): void {
    for (const listener of this.listeners) {
      try {
        listener(news);
      } catch {
        // one listener's failure keeps the others told
      }
    }
  }
}

/** What changes when the file is written or replaced; null when there is none. */
function fileStamp(path: string): string | null {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s === undefined) return null;
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch (error) {
    return `unreadable:${errorMessage(error)}`;
  }
}
