import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { parseConfig } from "../config/load.ts";
import { writeAtomic } from "../config/save.ts";
import { UserError } from "../errors.ts";

const STARTER = `# lembas's config.yaml: lembas config --help, and the README, name its keys. For example:
# model: local/qwen2.5-coder
# connections:
#   local:
#     base_url: http://127.0.0.1:11434/v1
`;

export type EditDeps = {
  /** The editor's command line, as $VISUAL or $EDITOR says it ("code --wait" too). */
  editor: string;
  /** Asks a yes/no question; false where no one can answer. */
  ask(question: string): Promise<boolean>;
  /** Where a config error is told while the person is asked whether to edit again. */
  tell(line: string): void;
};

/**
 * `lembas config edit`: the person edits a draft beside config.yaml, which replaces the file
 * (atomically) only once it is valid; an invalid draft is told, with its line, and they may edit
 * it again. config.yaml is never left half-valid, and an edit refused is kept in the draft.
 */
export async function editConfig(file: string, deps: EditDeps): Promise<string> {
  const draft = join(dirname(file), `.${basename(file)}.edit.yaml`);
  const original = existsSync(file) ? readFileSync(file, "utf8") : null;
  const resumed = existsSync(draft);
  if (!resumed) writeAtomic(draft, original ?? STARTER);
  else deps.tell(`going on from the edit kept in ${draft} (delete it to start again from ${file})`);
  for (;;) {
    const code = await runEditor(deps.editor, draft);
    if (code !== 0) {
      // An editor that fails is an edit given up (vim's :cq), as git takes it; a kept edit stays kept.
      if (!resumed) rmSync(draft, { force: true });
      // sh's 127: the command was not found.
      if (code === 127) throw new UserError(`there is no editor ${deps.editor}: set EDITOR (or VISUAL) to one, as in EDITOR=nano lembas config edit`, 2);
      throw new UserError(`the editor (${deps.editor}) exited with ${code}: ${file} is unchanged`, 1);
    }
    const text = readFileSync(draft, "utf8");
    const problem = validationProblem(file, text);
    if (problem === null) return save(file, draft, text, original);
    deps.tell(problem);
    if (!(await deps.ask("edit it again? [Y/n] "))) throw new UserError(`${file} is unchanged; the edit is kept in ${draft}: lembas config edit goes on from it`, 2);
  }
}

function save(file: string, draft: string, text: string, original: string | null): string {
  rmSync(draft, { force: true });
  if (text === (original ?? STARTER)) return `${file} is unchanged`;
  writeAtomic(file, text);
  return `saved ${file}`;
}

function validationProblem(file: string, text: string): string | null {
  try {
    parseConfig(file, text);
    return null;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** The editor gets the terminal; its command line goes through sh, as git runs $EDITOR. */
async function runEditor(editor: string, path: string): Promise<number> {
  const proc = Bun.spawn(["sh", "-c", `${editor} "$1"`, "sh", path], { stdio: ["inherit", "inherit", "inherit"] });
  return proc.exited;
}

/** The editor lembas config edit opens: $VISUAL, $EDITOR, else vi. */
export function chosenEditor(env: Record<string, string | undefined> = process.env): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || "vi";
}

/** A yes/no question on stderr, answered on the terminal (Enter is yes); no terminal: no. */
export async function askYes(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = (await rl.question(question)).trim().toLowerCase();
    return answer === "" || answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}
