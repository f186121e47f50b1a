import { readFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { LanguageServers } from "../lsp/pool.ts";
import { serverInstalledFor } from "../lsp/project-languages.ts";
import type { Db } from "../store/db.ts";
import { stampOf } from "./project-settings.ts";
import { trustedRootOf } from "../store/trust.ts";
import { waitMs } from "../timing.ts";
import { apartFromBefore, type Diagnostic, turnSummary, worthSaying } from "../tools/diagnostics.ts";
import type { LanguageServerAccess } from "../tools/server-access.ts";
import { displayPath } from "../tools/paths.ts";
import { findSandbox, planFor, sayOnce } from "../tools/sandbox.ts";
import type { CommandSetup } from "../tools/tool.ts";

const IDLE_MS = 5 * 60_000;
const WAIT_MS = 3_000;
const START_MS = 15_000;
/**
 * How long "no server for this project's files" is kept: a step's lookups share it, and a file or a
 * server that appears deeper than the directories whose stamps are watched is seen within it.
 */
const NOT_INSTALLED_MS = 5_000;

/**
 * The language servers of one engine (one process), shared by its sessions: src/lsp/ is loaded at
 * the first edit or lookup of a file a server may handle, never at start-up.
 */
export class EngineLanguageServers {
  private pool: LanguageServers | null = null;
  private loading: Promise<LanguageServers> | null = null;
  private readonly editedByTurn = new WeakMap<object, EditedFiles>();
  /**
   * Whether a server is installed for the project's files, by root and mode. Yes is kept for the
   * process; no only for a few seconds, and while the project root, its node_modules/.bin and PATH's
   * directories keep their stamps: a file or a server added there is seen at the next step.
   */
  private readonly installed = new Map<string, true | { until: number; stamps: string }>();

  constructor(private readonly deps: { config: Pick<Config, "lsp">; commands: CommandSetup; db: Db }) {}

  /**
   * Whether the `lsp` tool is offered: a server runs for the project, or one is installed for its
   * files and may start there (a trusted project; in plan mode, not one the project ships). Its
   * first call starts it.
   */
  offered(root: string, planMode: boolean): boolean {
    if (this.pool?.up(root)) return true;
    if (trustedRootOf(this.deps.db, root) === null) return false;
    const key = `${root}\0${planMode}`;
    const known = this.installed.get(key);
    if (known === true) return true;
    const PATH = this.deps.commands.env.PATH ?? "";
    const stamps = stampsOf(root, PATH);
    if (known && known.stamps === stamps && Date.now() < known.until) return false;
    const installed = serverInstalledFor(root, this.deps.config.lsp, PATH, !planMode);
    this.installed.set(key, installed || { until: Date.now() + NOT_INSTALLED_MS, stamps });
    return installed;
  }

  async servers(): Promise<LanguageServers> {
    if (this.pool) return this.pool;
    this.loading ??= import("../lsp/pool.ts").then(({ LanguageServers }) => {
      const { env, hidden } = this.deps.commands;
      this.pool = new LanguageServers({
        servers: this.deps.config.lsp,
        env,
        // As a bash call of the project runs: in the sandbox, with lembas's own dirs out of reach.
        wrap: (argv, root) => {
          const plan = planFor(hidden, root, findSandbox(), env);
          if (plan.kind !== "none") return plan.argv(argv, root);
          if (plan.fallback) sayOnce(plan.why);
          return argv;
        },
        idleMs: waitMs("LSP_IDLE_MS", IDLE_MS),
        waitMs: waitMs("LSP_WAIT_MS", WAIT_MS),
        startMs: waitMs("LSP_START_MS", START_MS),
      });
      return this.pool;
    });
    return await this.loading;
  }

  async stop(): Promise<void> {
    await this.pool?.stop();
  }

  /** The files a turn (its undo, which is its own) edited, with what their servers said of them. */
  editedIn(turn: object): EditedFiles {
    let edited = this.editedByTurn.get(turn);
    if (!edited) this.editedByTurn.set(turn, (edited = new Map()));
    return edited;
  }

  /**
   * The line said at the end of a turn that edited files: their errors as their servers see them
   * now, each asked again (within the wait) since a later edit or command may have changed them; a
   * file whose server does not answer in time counts as its last edit left it.
   */
  async turnSummary(turn: object): Promise<string | null> {
    const edited = this.editedByTurn.get(turn);
    if (!edited || edited.size === 0) return null;
    const now = new Map(await Promise.all([...edited].map(async ([shown, file]) => [shown, (await file.again().catch(() => null)) ?? file] as const)));
    return turnSummary(now);
  }
}

/** The stamps of the directories where a file or a server the project's look would find is most often added. */
function stampsOf(root: string, PATH: string): string {
  const dirs = [root, join(root, "node_modules", ".bin"), ...PATH.split(delimiter).filter((dir) => dir !== "")];
  return dirs.map((dir) => stampOf(dir) ?? "-").join("\0");
}

type Tally = { errors: number; warnings: number };

/** Each file a turn edited, by its shown path: its errors and warnings as its last edit left them, and a way to ask its server again. */
export type EditedFiles = Map<string, Tally & { again(): Promise<Tally | null> }>;

/**
 * What one session's tool call reaches of the servers, or undefined where none may start: in a
 * project that is not trusted. In plan mode a server the project ships (node_modules/.bin) is not
 * started either. Notices (a server left off) go to the session; each file's counts to `edited`.
 */
export function serverAccess(
  host: EngineLanguageServers,
  session: { root: string; db: Db; planMode: boolean; warnings: boolean; notice(message: string): void; edited?: EditedFiles },
): LanguageServerAccess | undefined {
  if (trustedRootOf(session.db, session.root) === null) return undefined;
  const asker = { root: session.root, projectBins: !session.planMode };
  const said = (notes: readonly string[]) => notes.forEach((note) => session.notice(note));
  return {
    diagnose: async (path, text, old) => {
      const found = await (await host.servers()).diagnose(asker, path, text, old);
      said(found.notes);
      if (found.diagnostics === null) return null;
      const wanted = worthSaying(found.diagnostics, session.warnings);
      // A flood read in part: what was not read is counted as more, whatever its severity.
      const count = wanted.length + Math.max(0, found.count - found.diagnostics.length);
      const again = async (): Promise<Tally | null> => {
        const text = await readFile(path, "utf8").catch(() => null);
        // A file the turn removed again has no errors left to count.
        if (text === null) return { errors: 0, warnings: 0 };
        const checked = await (await host.servers()).diagnose(asker, path, text);
        said(checked.notes);
        return checked.diagnostics === null ? null : tally(worthSaying(checked.diagnostics, session.warnings));
      };
      session.edited?.set(displayPath(path, session.root), { ...tally(wanted), again });
      const before = found.before ? { diagnostics: worthSaying(found.before.diagnostics, session.warnings), text: found.before.text } : null;
      return { ...apartFromBefore(wanted, text, before), count };
    },
    request: async (path, method, params) => {
      const asked = await (await host.servers()).ask(asker, path, method, params);
      if (!asked) return null;
      said(asked.notes);
      // A server left off answers nothing: the tool says no server handles the file.
      return "off" in asked ? null : { answer: asked.answer };
    },
  };
}

function tally(diagnostics: readonly Diagnostic[]): Tally {
  const errors = diagnostics.filter((d) => d.severity === 1).length;
  return { errors, warnings: diagnostics.length - errors };
}
