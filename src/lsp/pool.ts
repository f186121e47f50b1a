import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../tools/diagnostics.ts";
import { LanguageServer, type Published } from "./language-server.ts";
import { type ConfiguredServers, extensionOf, findServer, type FoundServer, specsFor } from "./known-servers.ts";

/** How the servers of one process run, and how long lembas waits on them. */
export type PoolOptions = {
  servers: ConfiguredServers;
  /** The environment a bash call gets (secrets left out): the servers' too. */
  env: Record<string, string>;
  /** A server's argv as a bash call in the project at ROOT would run (in the sandbox where there is one). */
  wrap(argv: string[], root: string): string[];
  /** After this long unused, a server is stopped (it starts again when next needed). */
  idleMs: number;
  /** How long an edit waits for its file's diagnostics, and a lookup for its answer. */
  waitMs: number;
  /** How long a server has to start and answer initialize. */
  startMs: number;
};

/** After this many edits in a row that a running server said nothing of, edits stop waiting for it. */
const SILENT_EDITS = 3;

/** Who asks, and may they start the project's own server (not in plan mode). */
export type Asker = { root: string; projectBins: boolean };

type Entry = {
  found: FoundServer;
  root: string;
  server: LanguageServer | null;
  starting: Promise<LanguageServer | null> | null;
  /** Left off for good (until the process ends): crashed twice, or spoke garbage. */
  off: boolean;
  restarted: boolean;
  /** Edits in a row the running server said nothing of within the wait; at SILENT_EDITS no edit waits for it again. */
  silent: number;
  /** A server that never publishes: edits no longer wait for it (its lookups still work). */
  unheard: boolean;
  /** A server that broke needs starting again at the next use (once). */
  broke: string | null;
  idle: ReturnType<typeof setTimeout> | null;
  /** Calls using it now (of any session): it is not idle while one runs. */
  users: number;
  /** What the person is told at the next call for this project (a crash, a server left off). */
  notes: string[];
};

/**
 * The file's diagnostics, null when no server said anything in time; `before`: what the server said
 * of its content before the edit (with that text), null where it is not known; and what to tell the person.
 */
export type Diagnosed = { diagnostics: Diagnostic[] | null; count: number; before: { diagnostics: Diagnostic[]; text: string } | null; notes: string[] };

type Checked = { now: Published | null; before: Published | null };

/**
 * The language servers of one process: one per project and language, started at the first edit or
 * lookup of such a file, shared by every session of the process, stopped when idle. A server that
 * stops working is started again once; one that stops again, or that writes what is not LSP, is
 * left off with a notice.
 */
export class LanguageServers {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: PoolOptions) {
    // A process that exits without stopping them (a one-shot run) leaves no server behind.
    process.once("exit", () => {
      for (const entry of this.entries.values()) entry.server?.kill();
    });
  }

  /** Whether a server runs for this project now (the `lsp` tool is offered then). */
  up(root: string): boolean {
    for (const entry of this.entries.values()) if (entry.root === root && entry.server?.alive) return true;
    return false;
  }

  /**
   * The file's diagnostics after TEXT was written to it, within the wait; null where no server
   * handles it. OLD: its content before (null: it is new), checked first where the server has said
   * nothing of the file yet, so that the errors already there are told from the edit's.
   */
  async diagnose(asker: Asker, path: string, text: string, old: string | null = null): Promise<Diagnosed> {
    const entry = this.entryFor(asker, path);
    if (!entry) return { diagnostics: null, count: 0, before: null, notes: [] };
    this.busy(entry);
    try {
      let checked = await this.diagnoseIn(entry, path, text, old);
      // A server that stopped while it checked the file gets its one restart now, not at the next edit.
      // What the stopped one said of the old content holds for the new one.
      if (checked.now === null && entry.broke !== null && !entry.restarted) checked = await this.diagnoseIn(entry, path, text, old, checked.before);
      const { now, before } = checked;
      return { diagnostics: now?.diagnostics ?? null, count: now?.count ?? 0, before: before ? { diagnostics: before.diagnostics, text: before.text } : null, notes: entry.notes.splice(0) };
    } finally {
      this.touch(entry);
    }
  }

  private async diagnoseIn(entry: Entry, path: string, text: string, old: string | null, known: Published | null = null): Promise<Checked> {
    const firstStart = !entry.server?.alive;
    const server = await this.running(entry);
    if (!server) return { now: null, before: known };
    // A server just started loads its project first: it is given longer for the first file.
    const wait = firstStart ? this.options.waitMs * 3 : this.options.waitMs;
    // One that never reports is still told the file's content, for the lookups that follow: not waited for.
    if (entry.unheard) return { now: await server.diagnose(path, text, 0), before: null };
    let before = known ?? server.lastFor(path) ?? null;
    if (!before && old !== null && old !== text) before = await server.diagnose(path, old, wait);
    const now = await server.diagnose(path, text, before ? this.options.waitMs : wait);
    if (server.alive) this.heard(entry, now !== null);
    return { now, before };
  }

  /** Counts the edits a running server said nothing of: after SILENT_EDITS in a row, they stop waiting for it, said once. */
  private heard(entry: Entry, answered: boolean): void {
    entry.silent = answered ? 0 : entry.silent + 1;
    if (entry.silent < SILENT_EDITS) return;
    entry.unheard = true;
    entry.notes.push(`the ${entry.found.spec.name} language server said nothing of ${SILENT_EDITS} edits in a row: lembas no longer waits for its diagnostics in ${entry.root} (its lookups still work)`);
  }

  /**
   * A request of the file's server about the file (its content read from the disk): null where no
   * server handles it, `off` where its server is left off (`notes` say why, once); throws
   * a sentence where the server could not answer.
   */
  async ask(asker: Asker, path: string, method: string, params: Record<string, unknown>): Promise<{ answer: unknown; notes: string[] } | { off: true; notes: string[] } | null> {
    const entry = this.entryFor(asker, path);
    if (!entry) return null;
    this.busy(entry);
    try {
      const server = await this.running(entry);
      const notes = entry.notes.splice(0);
      if (!server) return { off: true, notes };
      const text = await readFile(path, "utf8");
      const answer = await server.ask(method, params, path, text, this.options.waitMs * 2);
      return { answer, notes };
    } finally {
      this.touch(entry);
    }
  }

  /** Stops every server (the process ends). */
  async stop(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map(async (entry) => {
      if (entry.idle) clearTimeout(entry.idle);
      await entry.server?.stop();
    }));
  }

  private entryFor(asker: Asker, path: string): Entry | null {
    const specs = specsFor(extensionOf(path), this.options.servers);
    if (specs.length === 0) return null;
    const found = findServer(specs, asker.root, this.options.env.PATH ?? "", asker.projectBins);
    if (!found) return null;
    const key = `${asker.root}\0${found.spec.name}\0${found.path}`;
    const known = this.entries.get(key);
    if (known) return known;
    const entry: Entry = { found, root: asker.root, server: null, starting: null, off: false, silent: 0, unheard: false, restarted: false, broke: null, idle: null, users: 0, notes: [] };
    this.entries.set(key, entry);
    return entry;
  }

  private async running(entry: Entry): Promise<LanguageServer | null> {
    if (entry.off) return null;
    if (entry.server?.alive) return entry.server;
    entry.starting ??= this.start(entry).finally(() => {
      entry.starting = null;
    });
    return await entry.starting;
  }

  private async start(entry: Entry): Promise<LanguageServer | null> {
    const { found, root } = entry;
    const name = found.spec.name;
    if (entry.broke !== null) {
      if (entry.restarted) return this.leaveOff(entry, `the ${name} language server stopped again (${entry.broke}): lembas leaves it off for ${root}`);
      entry.restarted = true;
    }
    let server: LanguageServer | null = null;
    try {
      server = await LanguageServer.start({
        argv: this.options.wrap([found.path, ...found.spec.args], root),
        root,
        env: this.options.env,
        initializationOptions: found.initializationOptions,
        startMs: this.options.startMs,
        onBroken: (why) => {
          // An old server's end (one stopped when idle) says nothing of the one running now.
          if (entry.server === server) this.broken(entry, why);
        },
      });
      entry.server = server;
      entry.broke = null;
      return server;
    } catch (error) {
      return this.leaveOff(entry, `the ${name} language server (${found.path}) did not start: ${error instanceof Error ? error.message : String(error)}; lembas leaves it off for ${root}`);
    }
  }

  private broken(entry: Entry, why: string): void {
    entry.server = null;
    if (why === "it was stopped") return;
    // What is not LSP on its stdout: a server that speaks garbage once will again. A closed input
    // is a server that died before its exit was seen: a crash, started again once like an exit.
    if (!/^(it exited|its input closed)/.test(why)) {
      this.leaveOff(entry, `the ${entry.found.spec.name} language server broke off (${why}): lembas leaves it off for ${entry.root}`);
      return;
    }
    entry.broke = why;
  }

  private leaveOff(entry: Entry, note: string): null {
    if (!entry.off) entry.notes.push(note);
    entry.off = true;
    entry.server = null;
    return null;
  }

  /** In use: not stopped as idle until the use ends. */
  private busy(entry: Entry): void {
    entry.users++;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
  }

  /** A use ended: the server is stopped when none follows within the idle limit. */
  private touch(entry: Entry): void {
    entry.users--;
    // Another session's call still uses it: the last one to end starts the idle count.
    if (entry.users > 0) return;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      entry.idle = null;
      const server = entry.server;
      entry.server = null;
      entry.broke = null;
      entry.restarted = false;
      void server?.stop();
    }, this.options.idleMs);
    entry.idle.unref();
  }
}
