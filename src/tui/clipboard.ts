/**
 * The clipboard's image, read with the platform's own tool: wl-paste on Wayland, xclip on X11,
 * osascript on macOS. Each run has a time limit, so a tool that waits (a clipboard owner that never
 * answers) never holds the terminal.
 */
import { IMAGE_TYPES } from "../images.ts";

/** The longest one tool is waited for. */
const TOOL_TIMEOUT_MS = 3_000;

export type ClipboardImage = { ok: true; bytes: Uint8Array; mimeType: string } | { ok: false; message: string };

type Run = { code: number | null; stdout: Uint8Array; stderr: string; timedOut: boolean };

const NO_IMAGE: ClipboardImage = { ok: false, message: "the clipboard holds no image" };

/** Reads an image from the clipboard, or says in one line why there is none. */
export async function clipboardImage(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<ClipboardImage> {
  const path = env.PATH ?? "";
  const which = (tool: string) => Bun.which(tool, { PATH: path });
  if (platform === "darwin") {
    const osascript = which("osascript");
    if (osascript) return fromOsascript(osascript);
  }
  if (env.WAYLAND_DISPLAY) {
    const wlPaste = which("wl-paste");
    if (wlPaste) return fromTool(wlPaste, ["--list-types"], (type) => [wlPaste, "--no-newline", "--type", type]);
  }
  if (env.DISPLAY) {
    const xclip = which("xclip");
    if (xclip) return fromTool(xclip, ["-selection", "clipboard", "-t", "TARGETS", "-o"], (type) => [xclip, "-selection", "clipboard", "-t", type, "-o"]);
  }
  return { ok: false, message: "no clipboard tool for images here (wl-paste on Wayland, xclip on X11, osascript on macOS): drag the image file into the terminal instead" };
}

/** A tool that lists the clipboard's types, then gives the bytes of one. */
async function fromTool(tool: string, listArgs: string[], read: (type: string) => string[]): Promise<ClipboardImage> {
  const listed = await run([tool, ...listArgs]);
  const failed = failure(tool, listed);
  if (failed) return failed;
  const offered = new Set(new TextDecoder().decode(listed.stdout).split(/\s+/));
  const type = IMAGE_TYPES.find((t) => offered.has(t));
  if (!type) return NO_IMAGE;
  const got = await run(read(type));
  return failure(tool, got) ?? (got.stdout.length > 0 ? { ok: true, bytes: got.stdout, mimeType: type } : NO_IMAGE);
}

/** macOS: AppleScript prints the clipboard's PNG as «data PNGf<hex>». */
async function fromOsascript(osascript: string): Promise<ClipboardImage> {
  const got = await run([osascript, "-e", "the clipboard as «class PNGf»"]);
  if (got.timedOut) return { ok: false, message: `osascript did not answer in ${TOOL_TIMEOUT_MS / 1000} s` };
  const hex = /«data PNGf([0-9A-Fa-f]*)»/.exec(new TextDecoder().decode(got.stdout))?.[1];
  if (got.code !== 0 || !hex) return NO_IMAGE;
  return { ok: true, bytes: Uint8Array.from(Buffer.from(hex, "hex")), mimeType: "image/png" };
}

function failure(tool: string, result: Run): ClipboardImage | null {
  const name = tool.split("/").at(-1) ?? tool;
  if (result.timedOut) return { ok: false, message: `${name} did not answer in ${TOOL_TIMEOUT_MS / 1000} s` };
  if (result.code === 0) return null;
  const why = result.stderr.trim().split("\n")[0];
  // wl-paste and xclip say so when the clipboard is empty or has nothing of the asked type.
  if (!why || /nothing is copied|no selection|no suitable type|cannot convert/i.test(why)) return NO_IMAGE;
  return { ok: false, message: `${name} could not read the clipboard: ${why}` };
}

/**
 * Runs a tool to its end or its time limit, whichever is first. At the limit it is killed and not
 * waited for: a child it left behind may hold its output open.
 */
async function run(command: string[]): Promise<Run> {
  let proc: ReturnType<typeof spawn>;
  try {
    proc = spawn(command);
  } catch (error) {
    return { code: null, stdout: new Uint8Array(), stderr: error instanceof Error ? error.message : String(error), timedOut: false };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<Run>((resolve) => {
    timer = setTimeout(() => {
      proc.kill("SIGKILL");
      resolve({ code: null, stdout: new Uint8Array(), stderr: "", timedOut: true });
    }, TOOL_TIMEOUT_MS);
  });
  const ended = Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).text(), proc.exited]).then(
    ([stdout, stderr, code]): Run => ({ code, stdout: new Uint8Array(stdout), stderr, timedOut: false }),
  );
  try {
    return await Promise.race([ended, limit]);
  } finally {
    clearTimeout(timer);
  }
}

function spawn(command: string[]) {
  return Bun.spawn(command, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
}
