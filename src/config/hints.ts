/**
 * How to give lembas a model, as lines a person can paste into a shell as they are (no `<name>`,
 * which a shell reads as a redirection, and no `#` comments, which zsh passes on as words).
 */
export const NO_MODEL_LINES = [
  "lembas config set connections.local.base_url http://127.0.0.1:11434/v1",
  "lembas config set model local/qwen2.5-coder",
  "lembas login https://lembas.example.org",
] as const;

/** The no-model hint: a sentence, then the lines to paste, each indented. */
export function noModelHint(): string {
  return [
    "no model to talk to: add a connection and choose one of its models (lembas models lists them), or log in to a LLeMbas instance:",
    ...NO_MODEL_LINES.map((line) => `  ${line}`),
  ].join("\n");
}
