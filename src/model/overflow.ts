/**
 * How each server family says that a request does not fit the model's context window. Each row
 * names where its wording is documented or reported; the list of families follows pi-ai's
 * overflow detection (badlogic/pi-mono packages/ai/src/utils/overflow.ts), checked against the
 * servers' own reports below.
 */
const OVERFLOW_WORDINGS: readonly RegExp[] = [
  // OpenAI: "This model's maximum context length is 8192 tokens. However, your messages resulted in
  // 8227 tokens", code context_length_exceeded (crewAIInc/crewAI-examples#121). vLLM answers the
  // same sentence, and "… maximum context length is 4096 tokens and your request has 2104 input
  // tokens" when max_tokens is too large; OpenRouter says "This endpoint's maximum context length
  // is X tokens" (pi-ai overflow.ts; GearUnclear/LibreChat TOKEN-LIMITS-ISSUE.md).
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  // OpenAI's newer models: "Your input exceeds the context window of this model" (pi-ai).
  /exceeds the context window/i,
  // llama.cpp server: "the request exceeds the available context size, try increasing it", type
  // exceed_context_size_error with n_prompt_tokens and n_ctx (llama.cpp tools/server).
  /exceeds? the available context size/i,
  /exceed_context_size_error/i,
  // Anthropic (and its OpenAI-compatible endpoint): "prompt is too long: 213462 tokens > 200000
  // maximum" (pi-ai).
  /prompt is too long/i,
  // Gemini's OpenAI-compatible endpoint: "The input token count (1196265) exceeds the maximum
  // number of tokens allowed (1048575)" (pi-ai).
  /input token count.*exceeds the maximum/i,
  // Mistral: "Prompt contains X tokens … too large for model with Y maximum context length" (pi-ai).
  /too large for model with \d+ maximum context length/i,
  // Groq: "Please reduce the length of the messages or completion" (pi-ai); OpenAI's older wording too.
  /reduce the length of the messages/i,
  // LM Studio: "tokens to keep from the initial prompt is greater than the context length" (pi-ai).
  /greater than the context length/i,
  // xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens" (pi-ai).
  /maximum prompt length is \d+/i,
  // Together: "The input (X tokens) is longer than the model's context length (Y tokens)" (pi-ai).
  /longer than the model's context length/i,
];

/**
 * Rate limits speak of tokens too ("too many tokens per minute"): never a context overflow. Nor is
 * a reply length beyond the window (vLLM: "'max_tokens' or 'max_completion_tokens' is too large:
 * 9000. This model's maximum context length is 4096 tokens"): compacting the history cannot help;
 * max_output under the connection can.
 */
const NOT_OVERFLOW = /rate limit|too many requests|per minute|max_(?:completion_)?tokens'? (?:or '?max_completion_tokens'? )?is too large/i;

/**
 * Whether a server's error text says the request was longer than the model's window. Ollama never
 * says so: it cuts the prompt silently to its num_ctx (see compaction.ts for how that is noticed).
 */
export function saysContextOverflow(text: string): boolean {
  if (NOT_OVERFLOW.test(text)) return false;
  return OVERFLOW_WORDINGS.some((wording) => wording.test(text));
}

/** Where the wordings above give the window itself (OpenAI, vLLM, OpenRouter, Anthropic, Gemini, Mistral, xAI, Together). */
const WINDOW_IN_WORDING: readonly RegExp[] = [
  /maximum context length is (\d+)/i,
  /tokens > (\d+) maximum/i,
  /maximum number of tokens allowed \((\d+)\)/i,
  /with (\d+) maximum context length/i,
  /maximum prompt length is (\d+)/i,
  /model's context length \((\d+) tokens\)/i,
];

/** The window a server's overflow error names, when it names one. */
export function windowInOverflow(text: string): number | null {
  for (const wording of WINDOW_IN_WORDING) {
    const tokens = Number(wording.exec(text)?.[1]);
    if (Number.isInteger(tokens) && tokens > 0) return tokens;
  }
  return null;
}
