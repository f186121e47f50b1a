import { counted } from "../../plural.ts";
import type { Theme } from "../theme.ts";
import { foldedMessage } from "./folded-message.ts";
import { CachedBlock } from "./lines.ts";
import { plain } from "./plain.ts";

/** How many of a folded paste's first lines are shown under its marker. */
const PASTE_HEAD_LINES = 3;

/**
 * What the person sent, as they typed it (a command's name, not its body), and what it carried. A
 * large paste stays folded as the composer showed it, "[pasted 300 lines]" and its first lines,
 * and a long message (sent from the web, resumed) shows its first rows and its last with a count
 * of the rest (folded-message.ts): the model got it whole, the transcript need not repeat it.
 */
export class UserMessage extends CachedBlock {
  constructor(
    private readonly text: string,
    private readonly theme: Theme,
    private readonly attachments: readonly { name: string }[] = [],
    /** Where it was sent from when not this terminal (the web, in a shared session). */
    private readonly from: string | null = null,
    /** The large pastes in the text, drawn folded. */
    private readonly pastes: readonly string[] = [],
  ) {
    super();
  }

  protected draw(width: number): string[] {
    const t = this.theme;
    const lines: string[] = [];
    const flush = (text: string) => {
      if (text.trim() === "") return;
      const message = foldedMessage(text, width, lines.length === 0 ? "› " : "  ", "  ");
      const paint = (line: string) => t.bold(t.user(line));
      lines.push(...message.head.map(paint));
      if (message.hidden !== null) lines.push(t.dim(`  ${message.hidden}`));
      lines.push(...message.tail.map(paint));
    };
    // Each paste is its marker where it was, as the composer showed it, and its first lines under that line.
    let typed = "";
    for (const part of foldedParts(this.text, this.pastes)) {
      if (part.kind === "typed") {
        typed += part.text;
        continue;
      }
      // A paste's last line break ends its last line: it starts no line of its own.
      const all = part.text.replace(/\n$/, "").split("\n");
      flush(`${typed.replace(/^\n/, "")}[pasted ${counted(all.length, "line")}]`);
      typed = "";
      // Cut to the width before it is cleaned and measured: a pasted line may be megabytes long.
      for (const line of all.slice(0, PASTE_HEAD_LINES)) lines.push(t.dim(`  │ ${plain(line.slice(0, width * 4))}`));
      if (all.length > PASTE_HEAD_LINES) lines.push(t.dim("  │ …"));
    }
    flush(typed.replace(/^\n/, ""));
    for (const a of this.attachments) lines.push(t.dim(`  [attached ${plain(a.name)}]`));
    if (this.from) lines.push(t.dim(`  sent ${this.from}`));
    return ["", ...lines];
  }
}

type Part = { kind: "typed" | "pasted"; text: string };

/** The text cut into what was typed and the pastes, each where it first occurs. */
export function foldedParts(text: string, pastes: readonly string[]): Part[] {
  let parts: Part[] = [{ kind: "typed", text }];
  for (const paste of pastes) {
    const at = parts.findIndex((p) => p.kind === "typed" && p.text.includes(paste));
    const part = parts[at];
    if (!part) continue;
    const i = part.text.indexOf(paste);
    parts = [...parts.slice(0, at), { kind: "typed", text: part.text.slice(0, i) }, { kind: "pasted", text: paste }, { kind: "typed", text: part.text.slice(i + paste.length) }, ...parts.slice(at + 1)];
  }
  return parts.filter((p) => p.kind === "pasted" || p.text !== "");
}
