import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { withoutControls } from "../controls.ts";
import { UserError } from "../errors.ts";
import { CodeIndex } from "../code-index/project-index.ts";
import { indexOff, PROJECT_SETTINGS } from "../code-index/opt-out.ts";
import { embeddingTarget } from "../library/embedding-target.ts";
import { protectedPaths } from "../project/protected.ts";
import { projectRoot } from "../project/root.ts";
import { codeIndexCounts, dropCodeIndex } from "../store/code-files.ts";
import { listLogins } from "../store/logins.ts";

const n = (count: number, one: string) => `${count.toLocaleString("en")} ${one}${count === 1 ? "" : "s"}`;

/** The project of the working directory, its index and why it is off (null: on). */
function here() {
  const ctx = createContext();
  const config = ctx.config();
  const db = ctx.db();
  const root = projectRoot(process.cwd());
  const index = (say: (line: string) => void = () => {}) =>
    new CodeIndex({ db, root, target: () => embeddingTarget(config, listLogins(db), process.env), protectedPaths: protectedPaths(config.protected, [ctx.paths.configDir, ctx.paths.stateDir]), say });
  return { config, db, root, off: indexOff(config, root), index };
}

const status = defineCommand({
  meta: { name: "status", description: "How far the index of this project is: files and chunks indexed, files left out, files waiting", examples: ["lembas index status"] },
  args: {},
  async run() {
    const { db, root, off, index } = here();
    const counts = codeIndexCounts(db, root);
    console.log(`project: ${withoutControls(root)}`);
    if (off !== null) console.log(`index: off (${off})`);
    console.log(`indexed: ${n(counts.files, "file")}, ${n(counts.chunks, "chunk")}${counts.models.length > 0 ? ` (embedding: ${counts.models.join(", ")})` : ""}`);
    if (counts.skipped > 0) console.log(`left out: ${n(counts.skipped, "file")} (binary, minified, generated or too large)`);
    if (off !== null) return;
    // A listing and a stat per file, nothing embedded: what the next pass has to do.
    const plan = await index().survey();
    if (plan) console.log(plan.pending.length === 0 ? "up to date" : `waiting: ${n(plan.pending.length, "file")} new or changed of ${plan.total.toLocaleString("en")} (sessions index them in the background; lembas index rebuild does it all now)`);
  },
});

const rebuild = defineCommand({
  meta: { name: "rebuild", description: "Index this project again from nothing, now, in the foreground (its files' chunks are sent to the embedding model)", examples: ["lembas index rebuild"] },
  args: {},
  async run() {
    const { db, root, off, index } = here();
    if (off !== null) throw new UserError(`this project is not indexed: ${off}`, 1);
    dropCodeIndex(db, root);
    const made = index((line) => console.error(`lembas: ${withoutControls(line)}`));
    await made.settled();
    const progress = made.progress();
    await made.stop();
    if (progress?.problem) throw new UserError(`${progress.problem}: the index has ${n(progress.done, "file")} of ${progress.total.toLocaleString("en")}; a session or lembas index rebuild goes on`, 1);
    const counts = codeIndexCounts(db, root);
    console.log(`indexed ${n(counts.files, "file")} (${n(counts.chunks, "chunk")}) of ${withoutControls(root)}; ${n(counts.skipped, "file")} left out`);
  },
});

const off = defineCommand({
  meta: { name: "off", description: `Stop indexing this project: writes "index": false in its ${PROJECT_SETTINGS} and drops its index`, examples: ["lembas index off"] },
  args: {},
  async run() {
    const { db, root } = here();
    const path = join(root, PROJECT_SETTINGS);
    let settings: Record<string, unknown> = {};
    if (existsSync(path)) {
      try {
        const json: unknown = JSON.parse(readFileSync(path, "utf8"));
        if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not a JSON object");
        settings = json as Record<string, unknown>;
      } catch (error) {
        throw new UserError(`${path} does not read as JSON (${error instanceof Error ? error.message : String(error)}): fix it, or add "index": false to it by hand`, 1);
      }
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify({ ...settings, index: false }, null, 2)}\n`);
    dropCodeIndex(db, root);
    console.log(`the index of ${withoutControls(root)} is dropped and off ("index": false in ${PROJECT_SETTINGS}; take it out to index the project again)`);
  },
});

export default defineCommand({
  meta: {
    name: "index",
    description: "The project's code index that code_search searches by meaning (status, rebuild, off)",
    examples: ["lembas index status", "lembas index rebuild", "lembas index off"],
  },
  subCommands: { status, rebuild, off },
});
