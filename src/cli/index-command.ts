import { join } from "node:path";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { withoutControls } from "../controls.ts";
import { UserError } from "../errors.ts";
import { CodeIndex } from "../code-index/project-index.ts";
import { indexOff, PERSONAL_SETTINGS, PROJECT_SETTINGS, writeIndexSetting } from "../code-index/opt-out.ts";
import { setConfigKey, unsetConfigKey } from "../config/save.ts";
import { excludeOnce } from "../project/git-exclude.ts";
import { embeddingTarget } from "../library/embedding-target.ts";
import { protectedPaths } from "../project/protected.ts";
import { projectRoot } from "../project/root.ts";
import { codeIndexCounts, dropCodeIndex } from "../store/code-files.ts";
import { listLogins } from "../store/logins.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

const n = (count: number, one: string) => `${count.toLocaleString("en")} ${one}${count === 1 ? "" : "s"}`;

/** The project of the working directory, its index and why it is off (null: on). */
function here() {
  const ctx = createContext();
  const config = ctx.config();
  const db = ctx.db();
  const root = projectRoot(process.cwd());
  const index = (say: (line: string) => void = () => {}) =>
    new CodeIndex({ db, root, target: () => embeddingTarget(config, listLogins(db), process.env), protectedPaths: protectedPaths(config.protected, [ctx.paths.configDir, ctx.paths.stateDir]), say });
  return { config, db, root, off: indexOff(config, root), index, configFile: ctx.paths.configFile };
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
    if (off !== null) throw new UserError(`this project is not indexed: ${off}${undoing(off)}`, 1);
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

const scope = {
  project: { type: "boolean", description: `For everyone who works on this project: its shared, committed ${PROJECT_SETTINGS}` },
  everywhere: { type: "boolean", description: "For every project: index: in config.yaml" },
} as const;

/** Where `off` and `on` write: config.yaml, the project's shared settings, or the person's own settings of the project (the default). */
function where(args: { project?: boolean; everywhere?: boolean }): "everywhere" | "project" | "personal" {
  if (args.project && args.everywhere) throw new UserError("give --project or --everywhere, not both", 2);
  return args.everywhere ? "everywhere" : args.project ? "project" : "personal";
}

function writeSetting(root: string, file: string, off: boolean): boolean {
  try {
    return writeIndexSetting(join(root, file), off);
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error), 1);
  }
}

/** The command that takes away what `indexOff` said, if one does. */
function undoing(reason: string): string {
  if (reason.startsWith("index: false in config.yaml")) return " (lembas index on --everywhere)";
  if (reason.includes(PROJECT_SETTINGS)) return " (lembas index on --project)";
  if (reason.includes(PERSONAL_SETTINGS)) return " (lembas index on)";
  return "";
}

const off = defineCommand({
  meta: {
    name: "off",
    description: `Stop indexing this project, for you: "index": false in its ${PERSONAL_SETTINGS} (kept out of git), and its index dropped; --project for the whole team, --everywhere for every project`,
    examples: ["lembas index off", "lembas index off --project", "lembas index off --everywhere"],
  },
  args: scope,
  async run({ args }) {
    const { db, root, configFile } = here();
    const at = where(args);
    if (at === "everywhere") setConfigKey(configFile, "index", false);
    else writeSetting(root, at === "project" ? PROJECT_SETTINGS : PERSONAL_SETTINGS, true);
    // Kept out of git in this clone only; a repository that cannot be told is no reason to fail.
    if (at === "personal") await excludeOnce(root, PERSONAL_SETTINGS).catch(() => null);
    dropCodeIndex(db, root);
    const said = { everywhere: "index: false in config.yaml, for every project", project: `"index": false in ${PROJECT_SETTINGS}, for everyone on the project once committed`, personal: `"index": false in ${PERSONAL_SETTINGS}, yours, not committed` }[at];
    console.log(`the index of ${withoutControls(root)} is dropped and off (${said}); lembas index on${at === "personal" ? "" : ` --${at}`} turns it on again`);
  },
});

const on = defineCommand({
  meta: {
    name: "on",
    description: `Index this project again: takes "index": false out of your ${PERSONAL_SETTINGS}; --project out of its shared ${PROJECT_SETTINGS}, --everywhere out of config.yaml`,
    examples: ["lembas index on", "lembas index on --project", "lembas index on --everywhere"],
  },
  args: scope,
  async run({ args }) {
    const { configFile, root } = here();
    const at = where(args);
    if (at === "everywhere") unsetConfigKey(configFile, "index");
    else writeSetting(root, at === "project" ? PROJECT_SETTINGS : PERSONAL_SETTINGS, false);
    const still = indexOff(createContext().config(), root);
    if (still === null) return console.log(`${withoutControls(root)} is indexed again: a session indexes it in the background (lembas index rebuild does it now)`);
    throw new UserError(`${withoutControls(root)} is still not indexed: ${still}${undoing(still)}`, 1);
  },
});

export default defineCommand({
  meta: {
    name: "index",
    description: DESCRIPTIONS.index,
    examples: ["lembas index status", "lembas index rebuild", "lembas index off", "lembas index on"],
  },
  subCommands: { status, rebuild, off, on },
});
