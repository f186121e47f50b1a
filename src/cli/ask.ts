import { createInterface } from "node:readline/promises";
import type { Interaction, PermissionDecision } from "../engine/interaction.ts";

/** Asks the person at the terminal (stdin is a TTY); answers go to stderr so stdout stays the answer. */
export function terminalInteraction(): Interaction {
  return {
    async permission(request, signal) {
      const always = request.always ? ` / [a]lways (${request.always})` : "";
      const answer = await askLine(`\n${request.title}\n  ${request.reason}\n  allow? [y]es once${always} / [n]o: `, signal);
      const key = answer.trim().toLowerCase();
      if (key === "y" || key === "yes") return { outcome: "once" } satisfies PermissionDecision;
      if (request.always && (key === "a" || key === "always")) return { outcome: "session" };
      const feedback = key === "n" || key === "no" || key === "" ? undefined : answer.trim();
      return { outcome: "deny", ...(feedback ? { feedback } : {}) };
    },
    async question(request, signal) {
      const answers = [];
      for (const q of request.questions) {
        const lines = q.options.map((o, i) => `  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}`).join("\n");
        const reply = (await askLine(`\n${q.header}: ${q.question}\n${lines}\n  number(s), or your own answer: `, signal)).trim();
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
      process.stderr.write(`\nPlan (${request.path}):\n${request.text}\n`);
      const reply = (await askLine("  approve? [e]dit mode / [m]anual mode / or say what to change: ", signal)).trim();
      if (reply.toLowerCase() === "e") return { outcome: "approve", mode: "edit" };
      if (reply.toLowerCase() === "m") return { outcome: "approve", mode: "manual" };
      if (!reply) return { outcome: "dismissed" };
      return { outcome: "revise", feedback: reply };
    },
  };
}

async function askLine(question: string, signal: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question, { signal });
  } catch {
    return "";
  } finally {
    rl.close();
  }
}
