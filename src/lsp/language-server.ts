import { pathToFileURL } from "node:url";
import { Connection } from "./lsp-connection.ts";
import { type Diagnostic, fromLsp } from "../tools/diagnostics.ts";
import { languageId } from "./known-servers.ts";
import { stderrTail } from "./server-stderr.ts";
import { type DiagnosticPull, pullFor } from "./diagnostic-pull.ts";

/** The most diagnostics kept for one file: a server that floods is read this far, no further. */
const MAX_KEPT = 500;
/**
 * A server that only publishes says nothing of having checked a file in full (it may publish in
 * passes, syntax first): after it published for the file's text, it is done when it has been quiet
 * this long with no work of its own under way (a `$/progress` begun and not ended).
 */
const QUIET_MS = 250;

export type StartOptions = {
  argv: string[];
  root: string;
  env: Record<string, string>;
  initializationOptions?: Record<string, unknown> | undefined;
  startMs: number;
  /** The server stopped working after it started (it exited, or wrote garbage): why. */
  onBroken(why: string): void;
};

/** A file's diagnostics, how many there were (read or not), and the text they are of. */
export type Published = { diagnostics: Diagnostic[]; count: number; text: string };

/**
 * One running language server for one project: the documents lembas opened in it, the
 * diagnostics it published for them, and the requests lembas makes of it.
 */
export class LanguageServer {
  private readonly versions = new Map<string, { version: number; text: string }>();
  private readonly published = new Map<string, Published>();
  private readonly waiters = new Map<string, Set<Waker>>();
  private pull: DiagnosticPull | null = null;
  /** The `$/progress` tokens the server began and has not ended: work under way. */
  private readonly working = new Set<string | number>();

  private constructor(
    private readonly connection: Connection,
    readonly pid: number,
  ) {}

  /** Starts the server and initializes it, or throws a sentence saying why it could not. */
  static async start(options: StartOptions): Promise<LanguageServer> {
    let started = false;
    let early: string | null = null;
    const proc = Bun.spawn(options.argv, { cwd: options.root, env: options.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const stderr = stderrTail(proc.stderr);
    let server: LanguageServer | null = null;
    const connection = new Connection(proc, {
      notification: (method, params) => server?.notified(method, params),
      broken: (why) => {
        server?.wakeAll();
        if (started) options.onBroken(why);
        else early = why;
      },
    });
    server = new LanguageServer(connection, proc.pid);
    const rootUri = pathToFileURL(options.root).href;
    let answer: unknown;
    try {
      answer = await connection.request("initialize", initializeParams(rootUri, options.initializationOptions), options.startMs);
    } catch (error) {
      await connection.stop(100);
      // Why it did not start is often on its stderr ("rustup component add rust-analyzer"): its last lines are quoted.
      await Promise.race([stderr.ended, Bun.sleep(500)]);
      const said = stderr.quote();
      const why = early ?? (error instanceof Error ? error.message : String(error));
      throw new Error(said ? `${why}, saying "${said}"` : why);
    }
    started = true;
    server.pull = pullFor((answer as { capabilities?: unknown } | null)?.capabilities);
    connection.notify("initialized", {});
    return server;
  }

  get alive(): boolean {
    return this.connection.alive;
  }

  /** What the server last said of the file, whatever content it was about; undefined where it said nothing yet. */
  lastFor(path: string): Published | undefined {
    return this.published.get(pathToFileURL(path).href);
  }

  /**
   * The file's diagnostics once the server has seen TEXT as its content: pulled where the server
   * can be asked for them, else the ones it publishes next. Null when it said nothing within `waitMs`.
   */
  async diagnose(path: string, text: string, waitMs: number): Promise<Published | null> {
    const uri = pathToFileURL(path).href;
    const before = this.published.get(uri);
    this.sync(path, uri, text, true);
    if (this.pull) {
      const items = await this.pull(this.connection, uri, path, waitMs);
      if (!items) return null;
      const pulled = bounded(items, text);
      this.published.set(uri, pulled);
      return pulled;
    }
    return await this.nextPublished(uri, before, waitMs);
  }

  /** A request about a file at a position (or the workspace): the document is opened as it is first. */
  async ask(method: string, params: Record<string, unknown>, path: string, text: string, waitMs: number): Promise<unknown> {
    const uri = pathToFileURL(path).href;
    this.sync(path, uri, text, false);
    return await this.connection.request(method, method === "workspace/symbol" ? params : { textDocument: { uri }, ...params }, waitMs);
  }

  async stop(): Promise<void> {
    await this.connection.stop();
  }

  kill(): void {
    this.connection.kill();
  }

  /** Ends every wait for diagnostics now (the server stopped: none will come). */
  private wakeAll(): void {
    for (const wakers of this.waiters.values()) for (const wake of wakers) wake();
  }

  private sync(path: string, uri: string, text: string, saved: boolean): void {
    const open = this.versions.get(uri);
    if (open?.text === text && !saved) return;
    if (!open) {
      this.versions.set(uri, { version: 1, text });
      this.connection.notify("textDocument/didOpen", { textDocument: { uri, languageId: languageId(path), version: 1, text } });
    } else {
      const version = open.version + 1;
      this.versions.set(uri, { version, text });
      this.connection.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    }
    if (saved) this.connection.notify("textDocument/didSave", { textDocument: { uri }, text });
  }

  private notified(method: string, params: unknown): void {
    if (method === "$/progress") return this.progressed(params);
    // A server lembas asks for diagnostics: what it publishes on its own may be of an older text.
    if (method !== "textDocument/publishDiagnostics" || this.pull) return;
    const p = params as { uri?: unknown; diagnostics?: unknown; version?: unknown } | null;
    // Only the files lembas opened: a server that publishes for the whole workspace is not kept.
    const open = typeof p?.uri === "string" ? this.versions.get(p.uri) : undefined;
    if (typeof p?.uri !== "string" || !open || !Array.isArray(p.diagnostics)) return;
    // Of an older text (a check that ended after the file changed): not what the file has now.
    if (typeof p.version === "number" && p.version < open.version) return;
    this.published.set(p.uri, bounded(p.diagnostics, open.text));
    for (const wake of this.waiters.get(p.uri) ?? []) wake();
  }

  /** Work the server began or ended: a wait for diagnostics lasts while some is under way. */
  private progressed(params: unknown): void {
    const p = params as { token?: unknown; value?: { kind?: unknown } } | null;
    const token = p?.token;
    if (typeof token !== "string" && typeof token !== "number") return;
    if (p?.value?.kind === "begin") this.working.add(token);
    if (p?.value?.kind !== "end" || !this.working.delete(token) || this.working.size > 0) return;
    for (const wakers of this.waiters.values()) for (const wake of wakers) wake(true);
  }

  /**
   * The diagnostics published after `before`, and the ones that follow them until the server is
   * done (see QUIET_MS), within `waitMs` in all.
   */
  private nextPublished(uri: string, before: Published | undefined, waitMs: number): Promise<Published | null> {
    return new Promise((resolve) => {
      const wakers = this.waiters.get(uri) ?? new Set<Waker>();
      this.waiters.set(uri, wakers);
      let quiet: ReturnType<typeof setTimeout> | null = null;
      const done = () => {
        clearTimeout(deadline);
        if (quiet) clearTimeout(quiet);
        wakers.delete(wake);
        const now = this.published.get(uri);
        resolve(now !== undefined && now !== before ? now : null);
      };
      const settled = () => {
        quiet = null;
        // Its work under way ends with a `$/progress` end, which wakes this wait again.
        if (this.working.size === 0) done();
      };
      const wake: Waker = (progressEnded = false) => {
        if (!this.alive) return done();
        const now = this.published.get(uri);
        if (progressEnded && (now === undefined || now === before)) return;
        if (quiet) clearTimeout(quiet);
        quiet = setTimeout(settled, QUIET_MS);
      };
      const deadline = setTimeout(done, waitMs);
      wakers.add(wake);
    });
  }
}

/** Wakes a wait for a file's diagnostics: they came, or the server's work ended, or the server stopped. */
type Waker = (progressEnded?: boolean) => void;

function bounded(items: unknown[], text: string): Published {
  const diagnostics: Diagnostic[] = [];
  for (const item of items.slice(0, MAX_KEPT)) {
    const d = fromLsp(item);
    if (d) diagnostics.push(d);
  }
  return { diagnostics, count: items.length, text };
}

function initializeParams(rootUri: string, initializationOptions: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    // None: in the sandbox's own pid namespace lembas's pid names no process, and a server that
    // watches it would exit at once. lembas stops its servers itself, and their stdin closes with it.
    processId: null,
    clientInfo: { name: "lembas" },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "project" }],
    capabilities: {
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { relatedInformation: false },
        diagnostic: { dynamicRegistration: false },
        definition: { linkSupport: true },
        references: {},
        hover: { contentFormat: ["plaintext", "markdown"] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
      },
      workspace: { symbol: {}, configuration: true, workspaceFolders: true },
      // Its `$/progress` tells lembas when a check is still under way.
      window: { workDoneProgress: true },
    },
    ...(initializationOptions ? { initializationOptions } : {}),
    trace: "off",
  };
}
