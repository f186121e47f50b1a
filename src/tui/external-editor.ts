import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What of the screen is handed over: stopped (the terminal as it was before lembas), then started and drawn again. */
export type TerminalHandover = { stop(): void; start(): void; requestRender(force?: boolean): void };

export type ExternalEdit = { ok: true; text: string } | { ok: false; message: string };

/** The shell's exit code for a command it could not find, or found and could not run. */
const NOT_FOUND = 127;
const NOT_RUNNABLE = 126;

/**
 * Ctrl+G: the draft in the person's editor ($VISUAL, else $EDITOR, run by the shell as git runs
 * it, so `code --wait` works), with the terminal given to it meanwhile; the text it leaves is the
 * new draft. An editor unset, not found or exiting non-zero leaves the draft as it was and says why.
 */
export async function editExternally(draft: string, screen: TerminalHandover, env: Record<string, string | undefined> = process.env): Promise<ExternalEdit> {
  const editor = (env.VISUAL?.trim() || env.EDITOR?.trim()) ?? "";
  if (!editor) return { ok: false, message: "no editor to open the draft in: set $VISUAL or $EDITOR (e.g. export EDITOR=vim); the draft is unchanged" };
  const dir = mkdtempSync(join(tmpdir(), "lembas-draft-"));
  const file = join(dir, "prompt.md");
  try {
    writeFileSync(file, draft);
    const code = await runHandedOver(editor, file, screen);
    const named = env.VISUAL?.trim() ? "$VISUAL" : "$EDITOR";
    if (code === NOT_FOUND) return { ok: false, message: `${named} (${editor}) was not found; the draft is unchanged` };
    if (code === NOT_RUNNABLE) return { ok: false, message: `${named} (${editor}) could not be run; the draft is unchanged` };
    if (code !== 0) return { ok: false, message: `${named} (${editor}) exited with code ${code}; the draft is unchanged` };
    // Editors end a file with a newline the draft did not have.
    return { ok: true, text: readFileSync(file, "utf8").replace(/\r?\n$/, "") };
  } catch (error) {
    return { ok: false, message: `the draft could not be edited: ${error instanceof Error ? error.message : String(error)}; it is unchanged` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runHandedOver(editor: string, file: string, screen: TerminalHandover): Promise<number> {
  screen.stop();
  try {
    const child = Bun.spawn(["/bin/sh", "-c", `${editor} "$1"`, "sh", file], { stdio: ["inherit", "inherit", "inherit"] });
    return await child.exited;
  } finally {
    screen.start();
    screen.requestRender(true);
  }
}
