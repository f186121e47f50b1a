// A plain client of an SSE stream, for the benchmarks: what the engine's path is measured against.

/** The process's CPU time so far (user and system, every thread), in ms. */
export const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * A read of the stream: wall clock and CPU time from the first chunk to the last, and the whole
 * request's wall clock. The CPU time is what the path costs whatever else the machine runs (the
 * server is in this process: its share is the same for both readers).
 */
export type Timing = { stream: number; cpu: number; total: number };

/** A plain client: fetch, split SSE lines, parse each event's JSON, count those `isChunk` says are text. */
export async function rawRead(url: string, body: object, isChunk: (data: unknown) => boolean, chunks: number): Promise<Timing> {
  const started = performance.now();
  let first = 0;
  let last = 0;
  let cpuFirst = 0;
  let cpuLast = 0;
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const decoder = new TextDecoder();
  let buffer = "";
  let count = 0;
  for await (const part of response.body ?? []) {
    buffer += decoder.decode(part, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      if (!isChunk(JSON.parse(line.slice(6)))) continue;
      count++;
      last = performance.now();
      if (count === 1) {
        first = last;
        cpuFirst = cpuMs();
      } else if (count === chunks) cpuLast = cpuMs();
    }
  }
  if (count !== chunks) throw new Error(`raw client saw ${count} chunks, not ${chunks}`);
  return { stream: last - first, cpu: cpuLast - cpuFirst, total: performance.now() - started };
}

