import { createInterface } from "node:readline/promises";
import type { Interaction, PermissionDecision, PermissionRequest } from "../engine/interaction.ts";
import { unifiedDiff } from "../tools/diff.ts";
import { escapeControls, terminalLine, terminalText } from "../controls.ts";
import { shownArguments } from "../transcript/approval-args.ts";

/** A diff at the prompt is cut after this many lines (with a note saying how many more). */
const DIFF_LINES = 120;

/** Asks the person at the terminal (stdin is a TTY); answers go to stderr so stdout stays the answer. */
export function terminalInteraction(): Interaction {
  return {
    async permission(request, signal) {
      const answer = await askLine(approvalText(request), signal);
      const key = answer.trim().toLowerCase();
      if (key === "y" || key === "yes") return { outcome: "once" } satisfies PermissionDecision;
      if (request.always && (key === "a" || key === "always")) return { outcome: "session" };
      if (request.always && key === "ns") return { outcome: "deny", forSession: true };
      const kept = request.keep ? keepAnswer(key) : null;
      if (kept) return kept;
      const feedback = key === "n" || key === "no" || key === "" ? undefined : answer.trim();
      return { outcome: "deny", ...(feedback ? { feedback } : {}) };
    },
    async question(request, signal) {
      const answers = [];
      for (const q of request.questions) {
        // The model wrote these: shown as text, never as what the terminal acts on.
        const lines = q.options.map((o, i) => `  ${i + 1}. ${terminalLine(o.label)}${o.description ? ` — ${terminalLine(o.description)}` : ""}`).join("\n");
        const reply = (await askLine(`\n${terminalLine(q.header)}: ${terminalText(q.question)}\n${lines}\n  number(s), or your own answer: `, signal)).trim();
        if (!reply) {
          answers.push({ kind: "skipped" as const });
          continue;
        }
        const picked = reply.split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= q.options.length);
        if (picked.length > 0) answers.push({ kind: "options" as const, labels: picked.map((n) => q.options[n - 1]?.label ?? "") });
        else answers.push({ kind: "custom" as const, text: reply });
      }
      return { outcome: "answered", answers };
    },
    async plan(request, signal) {
      process.stderr.write(`\nPlan (${terminalLine(request.path)}):\n${terminalText(request.text)}\n`);
      const reply = (await askLine("  approve? [e]dit mode / [m]anual mode / or say what to change: ", signal)).trim();
      if (reply.toLowerCase() === "e") return { outcome: "approve", mode: "edit" };
      if (reply.toLowerCase() === "m") return { outcome: "approve", mode: "manual" };
      if (!reply) return { outcome: "dismissed" };
      return { outcome: "revise", feedback: reply };
    },
  };
}

/** p, e (kept until revoked), pd, pw, ed, ew; np, ne and their d, w: the card's rules kept. */
function keepAnswer(key: string): PermissionDecision | null {
  const match = /^(n?)([pe])([dw]?)$/.exec(key);
  if (!match) return null;
  const [, no, where, how] = match;
  return {
    outcome: no ? "deny" : "session",
    keep: { scope: where === "p" ? "project" : "everywhere", expires: how === "d" ? "day" : how === "w" ? "week" : "never" },
  };
}

/**
 * The approval as the terminal shows it: what will run and where (or the diff of what changes)
 * first, the model's description after, then why it asks and the choices.
 */
export function approvalText(request: PermissionRequest): string {
  const lines = [""];
  if (request.command) {
    lines.push(`${request.toolName} wants to run, in ${escapeControls(request.command.cwd)}:`);
    lines.push(...request.command.line.split("\n").map((line, i) => `${i === 0 ? "  $ " : "    "}${escapeControls(line)}`));
    if (request.description) lines.push(`  (the model describes it as: ${escapeControls(request.description)})`);
  } else {
    lines.push(escapeControls(request.title));
    const args = shownArguments(request);
    if (args !== null) lines.push(...args.split("\n").map((line) => `  ${line}`));
    if (request.description) lines.push(...request.description.split("\n").map((line) => `  ${escapeControls(line)}`));
  }
  for (const diff of request.diffs ?? []) {
    if (diff.oldText === null) lines.push("  (a new file)");
    lines.push(...unifiedDiff(diff.oldText ?? "", diff.newText, { maxLines: DIFF_LINES }).split("\n").map((line) => `  ${escapeControls(line)}`));
  }
  const always = request.always ? ` / [a]lways (${escapeControls(request.always)})` : "";
  lines.push(`  ${escapeControls(request.reason)}`);
  if (request.keep) {
    lines.push(`  keep it as ${request.keep.map(escapeControls).join(", ")}: [p] for this project / [e] everywhere, d or w after for a day or a week (pw); [np] / [ne] to keep denying it`);
  }
  const never = request.always ? " / [ns] no, for this session" : "";
  lines.push(`  allow? [y]es once${always} / [n]o${never}: `);
  return lines.join("\n");
}

/** One line read at the terminal after `question` (written to stderr); "" when it could not be read. */
export async function askLine(question: string, signal: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // The line is read in raw mode, where Ctrl-C is a key, not a signal: it is made the signal again,
  // so that it stops the turn (lembas run's handler) instead of answering "no".
  rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
  try {
    return await rl.question(question, { signal });
  } catch {
    return "";
  } finally {
    rl.close();
  }
}
