import { z } from "zod";
import { answerText } from "../account/answer-body.ts";
import { endpointHeaders } from "../model/endpoint.ts";
import type { EmbeddingTarget } from "./embedding-target.ts";

/** The embedding server could not give the vectors; the message is the sentence to show. */
export class EmbeddingError extends Error {
  override name = "EmbeddingError";
}

export type EmbedOptions = {
  signal?: AbortSignal;
  /** The dimension the vectors must have (the library's); unset: whatever the first has, the same for all. */
  dimension?: number;
  /** Called after each batch with how many texts have their vectors. */
  onProgress?(done: number, total: number): void;
  batchSize?: number;
  /** 429 answers waited out (their Retry-After) before giving up. */
  retries?: number;
  /** The longest Retry-After waited; a longer one gives up at once. */
  maxWaitMs?: number;
  /** Milliseconds the server took, added up (the benchmark subtracts them). */
  timing?: { serverMs: number };
  /** How long one request may take, its answer read (default a minute). */
  timeoutMs?: number;
};

export const EMBED_BATCH = 64;
const RETRIES = 3;
const MAX_WAIT_MS = 60_000;
/** One request, from sending to the answer read: a batch of 64 takes seconds on a CPU; a server that hangs must not hold a turn. */
const REQUEST_MS = 60_000;
/**
 * An answer's bytes per number of its vectors: a JSON float written in full is ~20 characters with
 * its comma, so 24 is generous; and a dimension assumed while the library has none (the largest
 * models give 4096). A batch's answer past inputs × dimension × 24 bytes (+ 64 KiB) is not read.
 */
const BYTES_PER_NUMBER = 24;
const MAX_DIMENSION = 8192;

const Reply = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().nonnegative().optional() })),
});

/**
 * The vectors of `texts` from the target's `/embeddings`, in order, each L2-normalised (so that a
 * dot product is the cosine), in batches. Throws an EmbeddingError with a sentence when the server
 * is down, keeps answering 429, answers an error, or gives vectors of the wrong number or dimension.
 */
export async function embedTexts(target: EmbeddingTarget, texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
  const size = options.batchSize ?? EMBED_BATCH;
  const out: Float32Array[] = [];
  let dimension = options.dimension;
  for (let at = 0; at < texts.length; at += size) {
    const batch = texts.slice(at, at + size);
    const vectors = await embedBatch(target, batch, { ...options, ...(dimension !== undefined ? { dimension } : {}) });
    for (const vector of vectors) {
      dimension ??= vector.length;
      if (vector.length !== dimension || vector.length === 0) {
        throw new EmbeddingError(
          `the embedding model ${target.ref} returned vectors of ${vector.length} dimensions where ${dimension} were expected (the library's): refused (if the model changed on the server, give embedding: its new name, and the library is re-embedded)`,
        );
      }
      out.push(normalised(vector));
    }
    options.onProgress?.(out.length, texts.length);
  }
  return out;
}

async function embedBatch(target: EmbeddingTarget, input: readonly string[], options: EmbedOptions): Promise<number[][]> {
  const url = `${target.endpoint.baseUrl}/embeddings`;
  const retries = options.retries ?? RETRIES;
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? REQUEST_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const late = () => new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`} (embedding: ${target.ref})`);
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...endpointHeaders(target.endpoint) },
        body: JSON.stringify({ model: target.model, input }),
        signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw new EmbeddingError("stopped");
      if (timeout.aborted) throw late();
      throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} could not be reached (${reason(error)}): is it running? (embedding: ${target.ref})`);
    }
    const max = input.length * (options.dimension ?? MAX_DIMENSION) * BYTES_PER_NUMBER + 64 * 1024;
    const answer = await answerText(response, max).catch(() => ({ text: "" }));
    // A stop while the answer was read leaves it cut short: that is no answer of the server's.
    if (options.signal?.aborted) throw new EmbeddingError("stopped");
    if (timeout.aborted) throw late();
    if ("tooLarge" in answer) {
      throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} answered more than ${Math.round(max / 1024)} KB for ${input.length} texts: refused, not read (embedding: ${target.ref})`);
    }
    const text = answer.text;
    if (options.timing) options.timing.serverMs += performance.now() - started;
    if (response.status === 429) {
      const wait = retryAfterMs(response.headers.get("retry-after"));
      const most = options.maxWaitMs ?? MAX_WAIT_MS;
      if (attempt >= retries || wait > most) {
        throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} kept refusing with 429 (rate limited) after ${attempt + 1} tries: try again later`);
      }
      await sleep(wait, options.signal);
      continue;
    }
    if (response.status === 401 || response.status === 403) {
      throw new EmbeddingError(`the embedding server refused the key (${response.status}): ${target.endpoint.authHint ?? "check the connection's key"}`);
    }
    if (!response.ok) {
      throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} answered ${response.status}${serverMessage(text)} (embedding: ${target.ref})`);
    }
    return vectorsOf(text, input.length, target);
  }
}

function vectorsOf(text: string, count: number, target: EmbeddingTarget): number[][] {
  let parsed;
  try {
    parsed = Reply.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} answered something that is not a list of embeddings (is ${target.ref} an embedding model?)`);
  const data = parsed.data.data;
  if (data.length !== count) throw new EmbeddingError(`the embedding server returned ${data.length} vectors for ${count} texts`);
  if (!data.some((d) => d.index !== undefined)) return data.map((d) => d.embedding);
  // Each input's vector is the one whose index is its place: a list that is not each place once is refused.
  const ordered = new Array<number[] | undefined>(count);
  for (const d of data) {
    if (d.index === undefined || d.index >= count || ordered[d.index] !== undefined) {
      throw new EmbeddingError(`the embedding server at ${target.endpoint.baseUrl} answered vectors whose index fields are not each input's place once: refused`);
    }
    ordered[d.index] = d.embedding;
  }
  return ordered as number[][];
}

/** Waits `ms`, or less when the signal stops the wait (then the EmbeddingError "stopped"). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return Bun.sleep(ms);
  if (signal.aborted) return Promise.reject(new EmbeddingError("stopped"));
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    };
    const stop = () => {
      done();
      reject(new EmbeddingError("stopped"));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** Retry-After in milliseconds: seconds, or an HTTP date; absent or unreadable: one second. */
export function retryAfterMs(header: string | null): number {
  if (header === null) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : 1000;
}

export function normalised(vector: readonly number[] | Float32Array): Float32Array {
  const out = Float32Array.from(vector);
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += (out[i] ?? 0) * (out[i] ?? 0);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) / norm;
  return out;
}

function reason(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return "connection refused";
  return error instanceof Error ? error.message : String(error);
}

function serverMessage(text: string): string {
  try {
    const body = z.object({ error: z.object({ message: z.string() }) }).safeParse(JSON.parse(text));
    if (body.success) return `: ${body.data.error.message.slice(0, 200)}`;
  } catch {
    // not JSON
  }
  return "";
}
