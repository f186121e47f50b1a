// What the first step request carries before the person's first word, in tokens: as the engine
// estimates them (tokens.ts, what test/engine/prompt-weight.test.ts holds) and in o200k, the
// measure of issue 32's goal, when the peers benchmark's tokenizer is installed (shared/peers/run.sh
// puts gpt-tokenizer under $PEERS_DIR/tok); null without it.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokensOfChars } from "../src/engine/tokens.ts";
import type { EngineHarness } from "../test/support/engine.ts";
import { contentText } from "../test/support/model.ts";
import { LIMITS } from "./goals.ts";

/** The goal for a large window (o200k tokens); a window of 16k tokens or less: 2,000. */
export const PROMPT_TOKENS_GOAL = LIMITS.engine.first_request_tokens;

type Encode = (text: string) => number[];

async function o200k(): Promise<Encode | null> {
  const file = join(process.env.PEERS_DIR ?? join(tmpdir(), "peers"), "tok", "node_modules", "gpt-tokenizer", "esm", "encoding", "o200k_base.js");
  if (!existsSync(file)) return null;
  return ((await import(file)) as { encode: Encode }).encode;
}

export async function firstRequestTokens(h: EngineHarness): Promise<{ estimated: number; o200k: number | null }> {
  const first = h.model.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0 && r.body.messages?.[0]?.role === "system");
  if (!first) throw new Error("the model received no step request");
  const system = contentText(first.body.messages?.[0]?.content);
  const tools = JSON.stringify(first.body.tools);
  const encode = await o200k();
  return { estimated: tokensOfChars(system.length) + tokensOfChars(tools.length), o200k: encode ? encode(system).length + encode(tools).length : null };
}
