/**
 * A request body's JSON text, `JSON.stringify(body)` to the byte, with each of its tools' specs
 * serialized once a process: the engine hands every request the same spec objects
 * (engine/toolset.ts makes one per tool), and they are most of a first request's bytes.
 */

/** Each tool spec's JSON, kept while the spec is. Specs are never changed once made. */
const specJson = new WeakMap<object, string>();

export function bodyJson(body: Record<string, unknown>): string {
  const tools = body.tools;
  if (!Array.isArray(tools) || tools.length === 0 || !tools.every((t) => typeof t === "object" && t !== null && !Array.isArray(t))) return JSON.stringify(body);
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let seen = false;
  for (const key of Object.keys(body)) {
    if (key === "tools") seen = true;
    else (seen ? after : before)[key] = body[key];
  }
  const head = JSON.stringify(before).slice(0, -1);
  const tail = JSON.stringify(after).slice(1);
  return `${head}${head.length > 1 ? "," : ""}"tools":${toolsJson(tools as object[])}${tail.length > 1 ? "," : ""}${tail}`;
}

function toolsJson(tools: readonly object[]): string {
  let text = "[";
  for (let i = 0; i < tools.length; i++) {
    const spec = tools[i] as object;
    let known = specJson.get(spec);
    if (known === undefined) {
      known = JSON.stringify(spec);
      specJson.set(spec, known);
    }
    text += i === 0 ? known : `,${known}`;
  }
  return `${text}]`;
}
