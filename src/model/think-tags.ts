import type { ModelEvent } from "./events.ts";

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Where the splitter is in a reply's text: nothing but whitespace yet (the reply may still open
 * with <think>), inside <think>… (reasoning), just after </think> (whitespace before the answer is
 * dropped), or in the answer (passed through as it comes).
 */
type State = "start" | "thinking" | "after" | "answer";

/**
 * Takes a reply's text and tells reasoning from the answer where the server had no reasoning
 * parser and left the model's `<think>…</think>` in the content (Ollama, llama.cpp with
 * `--reasoning-format none`, vLLM without `--reasoning-parser`, with DeepSeek-R1, Qwen3, QwQ and
 * similar models: their chat templates open every reply with <think>, see
 * docs.vllm.ai/en/latest/features/reasoning_outputs.html and llama.cpp's server README on
 * `--reasoning-format`). Only a reply that opens with the tag is read so (an answer that talks
 * about the tag later is left alone); the tag may be split across chunks; a reply that ends
 * inside it was all reasoning. Once the answer has started, a delta costs one comparison.
 */
export class ThinkTagSplitter {
  private state: State = "start";
  /** Text held back: the start of the reply, or what may be the start of </think>. */
  private held = "";
  /** Some reasoning was given (the whitespace opening it is dropped). */
  private reasoned = false;

  /** Appends the events of one content delta to `out`. */
  push(delta: string, out: ModelEvent[]): void {
    if (this.state === "answer") {
      out.push({ type: "text", delta });
      return;
    }
    if (this.state === "start") return this.start(delta, out);
    if (this.state === "after") return this.afterThinking(delta, out);
    this.thinking(delta, out);
  }

  /** The end of the reply: what was held back is given as what it most likely was. */
  end(out: ModelEvent[]): void {
    const held = this.held;
    this.held = "";
    if (held.length === 0) return;
    if (this.state === "thinking") out.push({ type: "reasoning", delta: held });
    else if (this.state === "start" && held.trim().length > 0) out.push({ type: "text", delta: held }); // a reply of whitespace alone says nothing
  }

  private start(delta: string, out: ModelEvent[]): void {
    const text = this.held + delta;
    const lead = text.length - text.trimStart().length;
    const rest = text.slice(lead);
    if (rest.length < OPEN.length && OPEN.startsWith(rest)) {
      this.held = text; // only whitespace, or the start of "<think>", so far
      return;
    }
    this.held = "";
    if (!rest.startsWith(OPEN)) {
      this.state = "answer";
      out.push({ type: "text", delta: text });
      return;
    }
    this.state = "thinking";
    this.thinking(rest.slice(OPEN.length), out);
  }

  private thinking(delta: string, out: ModelEvent[]): void {
    let text = this.held + delta;
    this.held = "";
    if (!this.reasoned) {
      // The whitespace a template puts after <think> is not reasoning (nor is an empty block).
      text = text.trimStart();
      if (text.length === 0) return;
      this.reasoned = true;
    }
    const close = text.indexOf(CLOSE);
    if (close !== -1) {
      if (close > 0) out.push({ type: "reasoning", delta: text.slice(0, close) });
      this.state = "after";
      this.afterThinking(text.slice(close + CLOSE.length), out);
      return;
    }
    const keep = partialSuffix(text, CLOSE);
    if (text.length > keep) out.push({ type: "reasoning", delta: text.slice(0, text.length - keep) });
    if (keep > 0) this.held = text.slice(text.length - keep);
  }

  private afterThinking(delta: string, out: ModelEvent[]): void {
    const answer = delta.trimStart();
    if (answer.length === 0) return;
    this.state = "answer";
    out.push({ type: "text", delta: answer });
  }
}

/** How many characters at the end of `text` could begin `tag` (the tag split across chunks). */
function partialSuffix(text: string, tag: string): number {
  const max = Math.min(tag.length - 1, text.length);
  for (let n = max; n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}
