import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import type { acp } from "../rpc/agent.ts";
import { waitMs } from "../timing.ts";
import { diskAccess, type FileAccess, type HeldText } from "../tools/file-access.ts";

/**
 * What an editor offers of its files (initialize's clientCapabilities.fs), and whether it answers:
 * one connection's, shared by its sessions.
 */
export type EditorFs = { read: boolean; write: boolean; patience: Patience };

/**
 * An editor that let a request go unanswered past the time limit is not waited on again on this
 * connection (each read would cost the limit anew): `silent` holds that request until the editor
 * answers it, with its text or an error (the cancel it was sent asks for one).
 */
type Patience = { silent: Promise<unknown> | null };

/** The fs methods a client offers; anything unreadable offers none. */
export function editorFs(clientCapabilities: unknown): EditorFs {
  const fs = offeredFs(clientCapabilities);
  return { read: fs?.readTextFile === true, write: fs?.writeTextFile === true, patience: { silent: null } };
}

/**
 * clientCapabilities.fs as the schema `{ fs?: { readTextFile?: boolean | null, writeTextFile?:
 * boolean | null } | null }` (loose objects) reads it, or null where it refuses the whole: checked by
 * hand, as every connection checks it at its start (zod's first parse compiles the schema: bench/START.md).
 * test/acp/editor-fs-check.test.ts holds it to that schema.
 */
function offeredFs(capabilities: unknown): Record<string, unknown> | null {
  if (!isObject(capabilities)) return null;
  const fs = capabilities.fs;
  if (!isObject(fs)) return null;
  for (const key of ["readTextFile", "writeTextFile"]) {
    const offered = fs[key];
    if (offered !== undefined && offered !== null && typeof offered !== "boolean") return null;
  }
  return fs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How long the editor may take to answer one request (src/timing.ts sets it for the tests). */
const DEFAULT_ANSWER_MS = 5000;
/** The most text taken from the editor for one file: past it, the disk's copy is read (the read tool bounds that). */
export const MAX_EDITOR_TEXT = 16 * 1024 * 1024;

const ReadAnswer = lazily(() => z.looseObject({ content: z.string() }));
/** A JSON-RPC error's data, where editors put what went wrong ("Internal error" says little). */
const ErrorData = lazily(() => z.union([z.string(), z.looseObject({ details: z.string() }), z.looseObject({ message: z.string() })]));

/**
 * Lends the session the editor's files for as long as it is attached here: reads through
 * fs/read_text_file (the person's unsaved buffers) and writes through fs/write_text_file (the
 * editor updates its buffer and saves), as far as the client offers them. Returns the release.
 */
export function lendEditorFiles(session: Session, cx: acp.AgentContext, fs: EditorFs): () => void {
  if (!fs.read && !fs.write) return () => {};
  const access = editorFiles(cx, session.id, fs);
  session.fileAccess = access;
  return () => {
    if (session.fileAccess === access) session.fileAccess = null;
  };
}

/** The editor's files as a FileAccess; what it does not offer stays the disk's. */
export function editorFiles(cx: acp.AgentContext, sessionId: string, fs: EditorFs, answerMs = waitMs("EDITOR_FILES_MS", DEFAULT_ANSWER_MS)): FileAccess {
  const seconds = `${Math.round(answerMs / 100) / 10} s`;
  const { patience } = fs;
  const ask = async (method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<{ answer: unknown } | { why: string }> => {
    if (patience.silent) return { why: `the editor did not answer within ${seconds} a request made earlier, and is not asked again until it answers` };
    if (signal.aborted) return { why: "the turn was cancelled while the editor was asked" };
    const late = AbortSignal.timeout(answerMs);
    // Cancelled (the turn, or the time limit), the request is still awaited: the editor's answer to it, whenever it comes, says it answers again.
    const request = cx.request(method, { sessionId, ...params }, { cancellationSignal: AbortSignal.any([signal, late]) });
    const settled = request.then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    );
    const over = new Promise<null>((resolve) => {
      const stop = () => resolve(null);
      signal.addEventListener("abort", stop, { once: true });
      late.addEventListener("abort", stop, { once: true });
    });
    const outcome = await Promise.race([settled, over]);
    if (outcome === null) {
      if (signal.aborted) return { why: "the turn was cancelled while the editor was asked" };
      patience.silent = settled;
      void settled.then(() => {
        if (patience.silent === settled) patience.silent = null;
      });
      return { why: `the editor did not answer within ${seconds}` };
    }
    if ("answer" in outcome) return { answer: outcome.answer };
    return { why: `the editor answered with an error (${editorError(outcome.error)})` };
  };
  return {
    writesHeld: fs.write,
    readText: !fs.read
      ? diskAccess.readText
      : async (path, signal): Promise<HeldText> => {
          const got = await ask("fs/read_text_file", { path }, signal);
          const onDisk = (why: string) => ({ fallback: `${why}, so this is the file as saved on disk`, why });
          if ("why" in got) return onDisk(got.why);
          const answer = ReadAnswer().safeParse(got.answer);
          if (!answer.success) return onDisk("the editor's answer held no text");
          if (answer.data.content.length > MAX_EDITOR_TEXT) return onDisk(`the editor's copy is larger than ${MAX_EDITOR_TEXT / 1024 / 1024} MiB`);
          return { text: answer.data.content };
        },
    writeText: !fs.write
      ? diskAccess.writeText
      : async (path, text, signal) => {
          const got = await ask("fs/write_text_file", { path, content: text }, signal);
          if ("why" in got) {
            const late = got.why === `the editor did not answer within ${seconds}` ? ": the change may reach it later, so read the file again before changing it" : "";
            throw new Error(`not written, as ${got.why}${late}`);
          }
          return { onDisk: false };
        },
  };
}

/** An editor's error as a person reads it: its message, with the details its data gives. */
function editorError(error: unknown): string {
  const message = errorMessage(error);
  const data = ErrorData().safeParse(typeof error === "object" && error !== null && "data" in error ? error.data : undefined);
  if (!data.success) return message;
  const details = typeof data.data === "string" ? data.data : "details" in data.data ? data.data.details : data.data.message;
  return details && details !== message ? `${message}: ${details}` : message;
}
