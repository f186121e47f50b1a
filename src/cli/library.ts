import { realpathSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { withoutControls } from "../controls.ts";
import { UserError } from "../errors.ts";
import { discoverFiles } from "../library/discover.ts";
import { protectedPaths } from "../project/protected.ts";
import { embeddingTarget } from "../library/embedding-target.ts";
import { EmbeddingError } from "../library/embeddings.ts";
import { addFiles, type AddSummary, reembedStale, type Reporter } from "../library/indexer.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../library/local.ts";
import type { Passage } from "../tools/library-backend.ts";
import { localLibrary } from "../library/open.ts";
import { accountLibrary, type LibrarySelection, selectLibrary } from "../library/selection.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { listDocuments, removeDocument } from "../store/library.ts";
import { listLogins } from "../store/logins.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

/** Sentences on stderr; progress on stderr only at a terminal, one line redrawn in place. */
function terminalReporter(out: NodeJS.WriteStream = process.stderr): Reporter & { done(): void } {
  let drawn = false;
  const clear = () => {
    if (drawn) out.write("\r\x1b[2K");
    drawn = false;
  };
  return {
    say(line) {
      clear();
      out.write(`lembas: ${line}\n`);
    },
    progress(line) {
      if (!out.isTTY) return;
      const width = (out.columns ?? 80) - 1;
      out.write(`\r\x1b[2K${withoutControls(line).slice(0, width)}`);
      drawn = true;
    },
    done: clear,
  };
}

const LOCAL_ARG = { local: { type: "boolean", description: "the device's own library, even when the agent uses the account's" } } as const;

/**
 * add, list and remove work on the device's own library: when the agent uses the account's, they
 * refuse (its documents are managed in the web UI) unless --local says the device's is meant.
 */
function deviceLibraryOnly(config: Config, db: Db, local: boolean | undefined): void {
  if (local) return;
  const selection = selectLibrary(config, db);
  if (selection.choice !== "lembas") return;
  if (!selection.login) throw new UserError(`${selection.problem} (--local works on the device's own library)`, 1);
  throw new UserError(`the agent uses the account's library on ${selection.login.name}: its documents are managed in the web UI (--local works on the device's own library)`, 1);
}

const add = defineCommand({
  meta: {
    name: "add",
    description: "Add files or directories (recursively, .gitignore honoured) to the device's library, embedding their text; a file added again is re-embedded only if it changed",
    examples: ["lembas library add docs/", "lembas library add notes.md ~/papers/spec.txt"],
  },
  args: { path: { type: "positional", many: true, description: "files and directories to add" }, ...LOCAL_ARG },
  async run({ args }) {
    const ctx = createContext();
    const config = ctx.config();
    const db = ctx.db();
    deviceLibraryOnly(config, db, args.local);
    const target = embeddingTarget(config, listLogins(db), process.env);
    if (!target.ok) throw new UserError(target.error, 2);
    const reporter = terminalReporter();
    const deps = { db, target: target.value, reporter };
    try {
      await reembedStale(deps);
    } catch (error) {
      reporter.done();
      if (error instanceof EmbeddingError) throw new UserError(`${error.message}; the library is as it was`, 1);
      throw error;
    }
    const found = await discoverFiles(args.path, process.cwd(), undefined, protectedPaths(config.protected, [ctx.paths.configDir, ctx.paths.stateDir]));
    for (const failure of found.failures) reporter.say(failure);
    const named = new Set(args.path.flatMap((p) => realFile(resolve(process.cwd(), p))));
    const summary = await addFiles(deps, found.files, named);
    reporter.done();
    for (const why of summary.refused) reporter.say(why);
    console.log(summaryLine(summary));
    if (summary.stopped) throw new UserError(`${summary.stopped}; the files before it were added whole, the rest not at all`, 1);
    if (found.failures.length > 0 || summary.refused.some((r) => !r.endsWith("skipped"))) process.exitCode = 1;
  },
});

function realFile(abs: string): string[] {
  try {
    return [realpathSync(abs)];
  } catch {
    return [];
  }
}

function summaryLine(s: AddSummary): string {
  const parts = [`added ${files(s.added)}`];
  if (s.updated > 0) parts.push(`re-embedded ${files(s.updated)} that changed`);
  parts[parts.length - 1] += ` (${s.chunks} chunk${s.chunks === 1 ? "" : "s"})`;
  if (s.unchanged > 0) parts.push(`${files(s.unchanged)} already there unchanged`);
  if (s.notText > 0) parts.push(`skipped ${files(s.notText)} that ${s.notText === 1 ? "is" : "are"} not text`);
  return parts.join("; ");
}

function files(n: number): string {
  return `${n} file${n === 1 ? "" : "s"}`;
}

const list = defineCommand({
  meta: { name: "list", description: "The documents in the device's library: path, chunks, embedding model, and whether the file changed since", examples: ["lembas library list"] },
  args: LOCAL_ARG,
  run({ args }) {
    const ctx = createContext();
    deviceLibraryOnly(ctx.config(), ctx.db(), args.local);
    const docs = listDocuments(ctx.db());
    if (docs.length === 0) return void console.error("lembas: the library is empty: lembas library add PATH… adds documents");
    for (const doc of docs) {
      const state = fileState(doc.path, doc.mtime, doc.size);
      console.log(`${withoutControls(doc.path)}  ${doc.chunks} chunk${doc.chunks === 1 ? "" : "s"}  ${doc.model}${state ? `  (${state})` : ""}`);
    }
  },
});

function fileState(path: string, mtime: number, size: number): string | null {
  try {
    const info = statSync(path);
    return Math.floor(info.mtimeMs) === mtime && info.size === size ? null : "changed since: the next search re-indexes it (or lembas library add it again)";
  } catch {
    return "the file is gone";
  }
}

const remove = defineCommand({
  meta: { name: "remove", description: "Take files (or every file under a directory) out of the device's library", examples: ["lembas library remove docs/old.md", "lembas library remove docs/"] },
  args: { path: { type: "positional", many: true, description: "files or directories as they were added" }, ...LOCAL_ARG },
  run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    deviceLibraryOnly(ctx.config(), db, args.local);
    const docs = listDocuments(db);
    let removed = 0;
    const missing: string[] = [];
    for (const path of args.path) {
      const abs = resolve(process.cwd(), path);
      const wanted = new Set([abs, ...realFile(abs)]);
      const under = docs.filter((d) => wanted.has(d.path) || [...wanted].some((w) => d.path.startsWith(w.endsWith(sep) ? w : w + sep)));
      if (under.length === 0) missing.push(path);
      for (const doc of under) if (removeDocument(db, doc.path)) removed += 1;
    }
    console.log(`removed ${files(removed)}`);
    if (missing.length > 0) throw new UserError(`not in the library: ${missing.join(", ")} (lembas library list shows what is)`, 1);
  },
});

const search = defineCommand({
  meta: {
    name: "search",
    description: "Search the library the agent uses: the device's (the text's meaning and its words: passages with their file and lines), or the account's when it is the one used",
    examples: ['lembas library search "how are tokens refreshed"', "lembas library search retry policy --limit 3 --json"],
  },
  args: {
    query: { type: "positional", rest: true, description: "what to look for" },
    limit: { type: "string", default: String(DEFAULT_LIMIT), valueHint: "N", description: `how many passages (1–${MAX_LIMIT})` },
    json: { type: "boolean", description: "one JSON object: {passages: [{path, startLine, endLine, score, text, citation?}]}" },
    ...LOCAL_ARG,
  },
  async run({ args }) {
    const limit = Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UserError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, not ${args.limit}`, 2);
    if (args.query.trim() === "") throw new UserError('say what to look for: lembas library search "how are tokens refreshed"', 2);
    const ctx = createContext();
    const config = ctx.config();
    const selection: LibrarySelection = args.local ? { choice: "local" } : selectLibrary(config, ctx.db());
    const passages = selection.choice === "lembas" ? await searchAccount(config, selection, args.query, limit) : await searchDevice(config, ctx.db(), args.query, limit);
    if (args.json) return void console.log(JSON.stringify({ passages }));
    if (passages.length === 0) return void console.error("lembas: nothing found");
    for (const p of passages) {
      const source = p.citation ?? `${p.path}:${p.startLine}-${p.endLine}`;
      console.log(`${withoutControls(source)}  (score ${p.score.toFixed(4)})`);
      console.log(withoutControls(p.text).replace(/^/gm, "  "));
      console.log("");
    }
  },
});

async function searchDevice(config: Config, db: Db, query: string, limit: number): Promise<Passage[]> {
  const reporter = terminalReporter();
  const library = localLibrary(config, db, process.env, reporter);
  if (!library.available()) throw new UserError("the library is empty: lembas library add PATH… adds documents", 1);
  const signal = AbortSignal.timeout(600_000);
  try {
    for (const note of await library.refresh(signal)) reporter.say(withoutControls(note));
    return await library.search(query, limit, signal);
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error), 1);
  } finally {
    reporter.done();
  }
}

/** The account's library, said on stderr (which login's), or the sentence why it cannot be searched. */
async function searchAccount(config: Config, selection: Extract<LibrarySelection, { choice: "lembas" }>, query: string, limit: number): Promise<Passage[]> {
  if (!selection.login) throw new UserError(selection.problem, 1);
  if (selection.note) console.error(`lembas: ${selection.note}`);
  const library = accountLibrary(config, selection.login);
  console.error(`lembas: searching the account's library on ${library.where} (--local searches the device's)`);
  try {
    return await library.search(query, limit, AbortSignal.timeout(600_000));
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error), 1);
  } finally {
    await library.stop();
  }
}

export default defineCommand({
  meta: {
    name: "library",
    description: DESCRIPTIONS.library,
    examples: ["lembas library add docs/", 'lembas library search "retry policy"'],
  },
  subCommands: { add, list, remove, search },
});
