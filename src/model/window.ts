import { z } from "zod";
import type { DiscoveredModel } from "../store/listings.ts";
import type { DialectId } from "./dialects.ts";

// A model's context window as a session uses it, apart from discovery.ts (which asks servers for
// it): the registry reads it at every model resolved, and a one-shot whose listing is kept never
// loads the discovery code (bench/RUN.md).

/** A model's window as lembas uses it, and where it came from. */
export type ModelWindow = {
  tokens: number;
  /** config: the connection's context (or its body's options.num_ctx); server: discovered; default: assumed. */
  from: "config" | "server" | "default";
  /** Where, in words: "config.yaml context", "/props default_generation_settings.n_ctx", "assumed 32k: …". */
  where: string;
};

/**
 * The window of one model: the connection's `context` over what the server said, and the safe
 * default (which says so) when neither does. For Ollama, the body's options.num_ctx is the window
 * it is asked to run with.
 */
export function modelWindow(
  model: Pick<DiscoveredModel, "contextLength" | "contextFrom"> | undefined,
  connection: { context?: number; body?: Record<string, unknown> },
  dialect: DialectId,
  fallback: number,
): ModelWindow {
  if (connection.context !== undefined) return { tokens: connection.context, from: "config", where: "context in config.yaml" };
  const numCtx = dialect === "ollama" ? bodyNumCtx(connection.body) : undefined;
  if (numCtx !== undefined) return { tokens: numCtx, from: "config", where: "options.num_ctx in the connection's body" };
  if (model?.contextLength !== undefined) return { tokens: model.contextLength, from: "server", where: model.contextFrom ?? "the server" };
  const k = `${Math.round(fallback / 1024)}k`;
  const hint =
    dialect === "ollama"
      ? `assumed ${k}: Ollama runs it with the window it was started with (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile; its /v1 takes no num_ctx) and cuts a longer prompt silently: set context under the connection to that window`
      : `assumed ${k}: set context under the connection`;
  return { tokens: fallback, from: "default", where: hint };
}

function bodyNumCtx(body: Record<string, unknown> | undefined): number | undefined {
  const parsed = z.object({ options: z.object({ num_ctx: z.number().int().positive() }) }).safeParse(body);
  return parsed.success ? parsed.data.options.num_ctx : undefined;
}
