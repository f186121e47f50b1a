import { z } from "zod";
import description from "./ask-user.txt" with { type: "text" };
import { fail, ok } from "./result.ts";
import { type Answer, defineTool, type Question, type QuestionOutcome } from "./tool.ts";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    questions: z
      .array(
        z.object({
          header: z.string().min(1).max(60).describe('A few words: "Database"'),
          question: z.string().min(1),
          multiple: z.boolean().optional(),
          options: z
            .array(
              z.object({
                label: z.string().min(1),
                description: z.string().optional(),
                recommended: z.boolean().optional().describe("The one you advise, if any"),
              }),
            )
            .min(1)
            .max(6),
        }),
      )
      .min(1)
      .max(4),
    why: z.string().optional(),
  });

/** Clients may send a long label back cut to this many characters. */
const LABEL_CUT = 240;

/** ask_user: questions with options for the person; the answers formatted for the model. */
export const askUserTool = defineTool({
  name: "ask_user",
  description,
  brief: "Asks the person 1 to 4 questions with options; only when the answer changes what you do and you cannot find it out.",
  schema,
  permission: "none",
  needs: ["people"],
  kind: "think",
  title: (input) => {
    const first = input.questions[0]?.header ?? "a question";
    return input.questions.length > 1 ? `Ask: ${first} (+${input.questions.length - 1} more)` : `Ask: ${first}`;
  },
  paths: () => [],
  async execute(input, ctx) {
    const overAdvised = overAdvisedQuestion(input.questions);
    if (overAdvised) return fail(overAdvised);
    const questions = input.questions.map(toQuestion);
    const outcome = await ctx.people.ask(questions, input.why);
    return ok(formatOutcome(questions, outcome), { meta: { outcome: outcome.outcome } });
  },
});

/** Says which question advises more than one option (the person is shown one as advised), or null. */
function overAdvisedQuestion(questions: z.infer<ReturnType<typeof schema>>["questions"]): string | null {
  for (const [i, q] of questions.entries()) {
    const advised = q.options.filter((o) => o.recommended).length;
    if (advised > 1) return `Question ${i + 1} ("${q.header}") marks ${advised} options recommended: mark only the one you advise, or none, and ask again.`;
  }
  return null;
}

/** A question as it is asked: the recommended option first, the others in their order. */
export function toQuestion(input: z.infer<ReturnType<typeof schema>>["questions"][number]): Question {
  const options = input.options.map((o) => ({
    label: o.label,
    ...(o.description ? { description: o.description } : {}),
    ...(o.recommended ? { recommended: true } : {}),
  }));
  const ordered = [...options.filter((o) => o.recommended), ...options.filter((o) => !o.recommended)];
  return { header: input.header, question: input.question, multiple: input.multiple ?? false, options: ordered };
}

/** What the model is told of the person's answers. */
export function formatOutcome(questions: Question[], outcome: QuestionOutcome): string {
  if (outcome.outcome === "nobody") {
    return "Nobody can be asked in this session: proceed with your best judgement and say what you assumed.";
  }
  if (outcome.outcome === "dismissed") {
    return "The person dismissed the questions without answering: do not ask them again now; go on with your best judgement where you safely can and say what you assumed, or stop and wait.";
  }
  const lines = questions.map((q, i) => `${q.header} (${q.question})\n→ ${formatAnswer(q, outcome.answers[i])}`);
  return `The person answered:\n\n${lines.join("\n\n")}`;
}

function formatAnswer(question: Question, answer: Answer | undefined): string {
  if (!answer || answer.kind === "skipped") return "no answer";
  if (answer.kind === "custom") return `in their own words: ${answer.text}`;
  if (answer.kind === "back") return `the person asks you: ${answer.text}; answer them, then ask again`;
  if (answer.labels.length === 0) return "no answer";
  return answer.labels.map((label) => fullLabel(question, label)).join(", ");
}

/** The option label a returned label stands for: itself, or the one it is the cut start of. */
export function fullLabel(question: Question, label: string): string {
  if (question.options.some((o) => o.label === label)) return label;
  const stem = label.replace(/(…|\.\.\.)$/, "").trimEnd();
  if (stem.length === 0 || label.length > LABEL_CUT + 3) return label;
  return question.options.find((o) => o.label.length > stem.length && o.label.startsWith(stem))?.label ?? label;
}
