import type { HistoryTurn } from "./history-turns.ts";
import { storedToolTitle } from "./tool-titles.ts";
import { denialWord, storedDenial } from "./denials.ts";

/** A stored session as a reader needs it: its id, title and where it worked. */
type Where = { id: string; title: string; cwd: string; root: string };

/** The turns as Markdown: the person's and the assistant's words, each tool call a short line. */
export function toMarkdown(session: Where, turns: readonly HistoryTurn[], opts: { exported?: boolean } = {}): string {
  const exported = opts.exported === false ? "" : `, exported ${new Date().toISOString().slice(0, 16).replace("T", " ")}`;
  const out = [`# ${session.title || session.id}`, "", `Session ${session.id} in ${session.cwd}${exported}.`];
  for (const turn of turns) {
    out.push("");
    if (turn.role === "user") {
      out.push("## You", "", turn.text);
      for (const a of turn.attachments ?? []) out.push(`- attached ${a.name} (${a.mimeType})`);
      continue;
    }
    out.push("## lembas", "");
    for (const tool of turn.tools) out.push(`- \`${storedToolTitle(tool.name, tool.args, session).replace(/`/g, "'")}\`${ending(tool)}`);
    if (turn.tools.length > 0 && turn.text) out.push("");
    if (turn.text) out.push(turn.text);
  }
  return `${out.join("\n")}\n`;
}

/** The turns as plain text (lembas sessions show): a header a turn, each tool call a line. */
export function toText(session: Where, turns: readonly HistoryTurn[]): string {
  const out = [`${session.id}  ${session.title || "(untitled)"}  in ${session.cwd}`];
  for (const turn of turns) {
    out.push("");
    if (turn.role === "user") {
      out.push("── you", turn.text);
      for (const a of turn.attachments ?? []) out.push(`(attached ${a.name}, ${a.mimeType})`);
      continue;
    }
    out.push("── lembas");
    for (const tool of turn.tools) out.push(`› ${storedToolTitle(tool.name, tool.args, session)}${ending(tool)}`);
    if (turn.text) out.push(turn.text);
  }
  return `${out.join("\n")}\n`;
}

/** How a stored call ended, when not well: refused (by a rule), denied by the person, or failed. */
function ending(tool: { output?: string; isError?: boolean }): string {
  if (!tool.isError) return "";
  const denial = storedDenial(tool);
  return denial === null ? " (failed)" : ` (${denialWord(denial)})`;
}
