import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";
import { counted } from "../../plural.ts";

/** A clipboard program: its name as said, and its command line. */
type Copier = { name: string; argv: string[] };

/** The clipboard programs to try, in order, that this system has (Wayland, then X, then macOS). */
function copiers(env = process.env): Copier[] {
  const found: Copier[] = [];
  const add = (name: string, args: string[], when = true) => {
    const path = when ? Bun.which(name) : null;
    if (path) found.push({ name, argv: [path, ...args] });
  };
  add("wl-copy", [], Boolean(env.WAYLAND_DISPLAY));
  add("xclip", ["-selection", "clipboard"], Boolean(env.DISPLAY));
  add("xsel", ["--clipboard", "--input"], Boolean(env.DISPLAY));
  add("pbcopy", []);
  return found;
}

async function runCopier(copier: Copier, text: string): Promise<boolean> {
  try {
    const proc = Bun.spawn(copier.argv, { stdin: new Blob([text]), stdout: "ignore", stderr: "ignore" });
    const timer = setTimeout(() => proc.kill(), 3_000);
    const code = await proc.exited;
    clearTimeout(timer);
    return code === 0;
  } catch {
    return false;
  }
}

/** /copy: the last answer to the clipboard, through a clipboard program, else OSC 52 to the terminal. */
export async function copy(app: CommandHost): Promise<void> {
  const text = app.transcript.lastAnswer();
  if (!text) return say(app, "there is no answer to copy yet");
  const size = counted(text.length, "character");
  for (const copier of copiers()) {
    if (await runCopier(copier, text)) return say(app, `copied the last answer (${size}) with ${copier.name}`);
  }
  app.writeTerminal(`\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`);
  say(app, `sent the last answer (${size}) to the terminal's clipboard (OSC 52; some terminals ignore it)`);
}
