import * as acp from "./acp.ts";
import type { AnyMessage, Stream } from "./stream.ts";

export { acp };

/**
 * Connects an agent app to a transport's stream, and gives the bare "Invalid params" answers a
 * sentence naming what is wrong, taken from zod's tree in the answer's data, so a client sees
 * "-32602 Invalid params: cwd: Invalid input: expected string, received number".
 */
export function connectAgent(app: acp.AgentApp, stream: Stream, refuse?: Refusal): acp.AgentConnection {
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write: (message) => writer.write(withSentence(message)),
    close: () => writer.close(),
  });
  if (!refuse) return app.connect({ readable: stream.readable, writable });
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        const id = "method" in message && "id" in message ? message.id : null;
        const why = id !== null && "method" in message ? refuse(message.method, message.params) : null;
        if (why === null) return controller.enqueue(message);
        // The peer may be gone already: its refusal has nobody to reach then.
        writer.write({ jsonrpc: "2.0", id, error: { code: -32602, message: `Invalid params: ${why}` } }).catch(() => {});
      },
    }),
  );
  return app.connect({ readable, writable });
}

/**
 * A request's params refused before the app reads them, with a sentence of our own: where the
 * ACP schema would answer a terse "Invalid params" for a part we can say more of.
 */
export type Refusal = (method: string, params: unknown) => string | null;

function withSentence(message: AnyMessage): AnyMessage {
  if (!("error" in message) || !message.error || message.error.code !== -32602) return message;
  if (message.error.message !== "Invalid params") return message;
  const sentence = zodTreeSentence(message.error.data);
  return sentence ? { ...message, error: { ...message.error, message: `Invalid params: ${sentence}` } } : message;
}

/** zod's `format()` tree → "cwd: expected string; prompt.0.type: …" (the first few). */
export function zodTreeSentence(tree: unknown, path: string[] = [], out: string[] = []): string {
  if (typeof tree !== "object" || tree === null) return out.join("; ");
  const node = tree as Record<string, unknown>;
  const errors = Array.isArray(node._errors) ? node._errors.filter((e): e is string => typeof e === "string") : [];
  for (const error of errors) if (out.length < 4) out.push(path.length > 0 ? `${path.join(".")}: ${error}` : error);
  for (const [key, child] of Object.entries(node)) {
    if (key !== "_errors") zodTreeSentence(child, [...path, key], out);
  }
  return out.join("; ");
}
