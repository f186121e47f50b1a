/**
 * A language server that speaks LSP as a bad one does, a real peer for lembas's client: started as
 * `bun fake-lsp.ts MODE LOG`, it appends its pid to LOG when it starts (and to LOG.stopped when told
 * to exit), then by MODE:
 * - ok: publishes, for each file opened or changed, an error on every line holding ERR and a
 *   warning on every line holding WARN; a change to a text holding CRASH makes it exit at once;
 * - crash-start: says why on stderr, and exits before it answers initialize;
 * - hang: answers initialize, then never says anything again;
 * - flood: publishes 1,000 errors for the file (twice what lembas reads of one file), and
 *   diagnostics for 2,000 files never opened;
 * - garbage: answers initialize, then writes a log line to stdout where a message belongs;
 * - mute: answers every request, and never publishes a diagnostic;
 * - pull: publishes nothing, and answers textDocument/diagnostic (pull diagnostics) as ok publishes.
 * - tsserver: as typescript-language-server does, publishes as ok but never again for a file that
 *   stays clean, and answers its `typescript.tsserverRequest`
 *   command's syntacticDiagnosticsSync and semanticDiagnosticsSync with tsserver's diagnostics;
 * - progress: begins work (`$/progress`) and publishes none at once (its quick first pass), then
 *   600 ms later the file's diagnostics and the work's end, as a server whose check takes time says it;
 * - stale: as ok, but a change's publish comes 400 ms late, its version named, after one of the
 *   text before (the version before), as from a check that ended after the file changed;
 * - late: as ok, but its first publish comes after a 1.5 s load, and 1 s after each publish it
 *   publishes again with an error more ("late thing") and says nothing of being busy.
 * In every mode but hang, a definition at a line holding `->NAME` is NAME's first line (NAME beside
 * the file), and a hover there quotes that line, as a real server's hover quotes a declaration.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [mode = "ok", log] = process.argv.slice(2);
if (log) appendFileSync(log, `${process.pid}\n`);
if (mode === "crash-start") {
  process.stderr.write("an old log line\nstarting the fake server\nerror: Unknown binary 'fake' in toolchain\nhelp: install its component\n");
  process.exit(7);
}

function send(message: unknown): void {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...(message as object) }));
  process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
}

function diagnostics(text: string): unknown[] {
  return text.split("\n").flatMap((line, i) => {
    const at = (word: string) => line.indexOf(word);
    if (at("ERR") >= 0) return [{ range: { start: { line: i, character: at("ERR") }, end: { line: i, character: at("ERR") + 3 } }, severity: 1, message: `bad thing on line ${i + 1}` }];
    if (at("WARN") >= 0) return [{ range: { start: { line: i, character: at("WARN") }, end: { line: i, character: at("WARN") + 4 } }, severity: 2, message: `odd thing on line ${i + 1}` }];
    return [];
  });
}

const texts = new Map<string, string>();
/** What was last published of each file (tsserver mode). */
const said = new Map<string, string>();
let loaded = false;
/** The version of each open file, as lembas last said it. */
const versions = new Map<string, number>();
let nextToken = 1;

function publish(uri: string, text: string, changed: boolean): void {
  if (changed && text.includes("CRASH")) process.exit(3);
  const old = texts.get(uri) ?? "";
  texts.set(uri, text);
  if (mode === "pull") return;
  if (mode === "tsserver") {
    const now = JSON.stringify(diagnostics(text));
    const before = said.get(uri);
    said.set(uri, now);
    if (before === "[]" && now === "[]") return;
  }
  if (mode === "progress") {
    const token = `check-${nextToken++}`;
    send({ id: `create-${token}`, method: "window/workDoneProgress/create", params: { token } });
    send({ method: "$/progress", params: { token, value: { kind: "begin", title: "checking" } } });
    send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: [] } });
    setTimeout(() => {
      send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: diagnostics(texts.get(uri) ?? "") } });
      send({ method: "$/progress", params: { token, value: { kind: "end" } } });
    }, 600);
    return;
  }
  if (mode === "stale" && changed) {
    const version = versions.get(uri) ?? 0;
    send({ method: "textDocument/publishDiagnostics", params: { uri, version: version - 1, diagnostics: diagnostics(old) } });
    setTimeout(() => send({ method: "textDocument/publishDiagnostics", params: { uri, version, diagnostics: diagnostics(text) } }), 400);
    return;
  }
  if (mode === "late") {
    const first = !loaded;
    loaded = true;
    setTimeout(() => {
      const now = diagnostics(texts.get(uri) ?? "");
      send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: now } });
      const late = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 1, message: "late thing" };
      setTimeout(() => send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: [...now, late] } }), 1_000);
    }, first ? 1_500 : 0);
    return;
  }
  if (mode === "hang" || mode === "mute") return;
  if (mode === "garbage") {
    process.stdout.write("[info] checking the file now\n");
    return;
  }
  if (mode === "flood") {
    for (let i = 0; i < 2_000; i++) send({ method: "textDocument/publishDiagnostics", params: { uri: `file:///elsewhere/f${i}.fake`, diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: "x" }] } });
    const many = Array.from({ length: 1_000 }, (_, i) => ({ range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, severity: 1, message: `flood ${i + 1}` }));
    send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: many } });
    return;
  }
  send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: diagnostics(text) } });
}

function handle(message: { id?: number; method?: string; params?: Record<string, unknown> }): void {
  // lembas's answer to a request of ours (window/workDoneProgress/create).
  if (message.method === undefined) return;
  const p = message.params ?? {};
  const doc = p.textDocument as { uri: string; text?: string; version?: number } | undefined;
  if (doc && typeof doc.version === "number") versions.set(doc.uri, doc.version);
  switch (message.method) {
    case "initialize":
      return send({ id: message.id, result: { capabilities: { textDocumentSync: 1, definitionProvider: true, ...(mode === "pull" ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}), ...(mode === "tsserver" ? { executeCommandProvider: { commands: ["typescript.tsserverRequest"] } } : {}) } } });
    case "workspace/executeCommand":
      return send({ id: message.id, result: tsserverRequest(p.command, p.arguments) });
    case "textDocument/definition":
    case "textDocument/hover": {
      if (mode === "hang") return;
      const target = pointedAt(doc?.uri ?? "", (p.position as { line: number } | undefined)?.line ?? 0);
      if (!target) return send({ id: message.id, result: null });
      if (message.method === "textDocument/definition") return send({ id: message.id, result: { uri: pathToFileURL(target).href, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } } });
      return send({ id: message.id, result: { contents: { kind: "plaintext", value: readFileSync(target, "utf8").split("\n")[0] } } });
    }
    case "textDocument/diagnostic":
      return send({ id: message.id, result: { kind: "full", items: diagnostics(texts.get(doc?.uri ?? "") ?? "") } });
    case "shutdown":
      return send({ id: message.id, result: null });
    case "exit":
      if (log) appendFileSync(`${log}.stopped`, `${process.pid}\n`);
      return process.exit(0);
    case "textDocument/didOpen":
      return publish(doc?.uri ?? "", doc?.text ?? "", false);
    case "textDocument/didChange":
      return publish(doc?.uri ?? "", ((p.contentChanges as { text: string }[] | undefined) ?? [])[0]?.text ?? "", true);
    default:
      if (message.id !== undefined && mode !== "hang") send({ id: message.id, result: null });
  }
}

/** tsserver's answer to a request typescript-language-server hands it: a file's syntactic errors (none here) or semantic ones (ERR, WARN). */
function tsserverRequest(command: unknown, args: unknown): unknown {
  if (mode !== "tsserver" || command !== "typescript.tsserverRequest" || !Array.isArray(args)) return null;
  const [request, { file }] = args as [string, { file: string }];
  const uri = pathToFileURL(file).href;
  const found = request === "semanticDiagnosticsSync" ? diagnostics(texts.get(uri) ?? "") : [];
  const body = found.map((d) => {
    const { range, severity, message } = d as { range: { start: { line: number; character: number } }; severity: number; message: string };
    return { start: { line: range.start.line + 1, offset: range.start.character + 1 }, end: { line: range.start.line + 1, offset: range.start.character + 4 }, text: message, category: severity === 1 ? "error" : "warning", code: 2322 };
  });
  return { seq: 0, type: "response", command: request, request_seq: 1, success: true, body };
}

/** The file a line of the document points at with `->NAME`, or null. */
function pointedAt(uri: string, line: number): string | null {
  const name = /->(\S+)/.exec((texts.get(uri) ?? "").split("\n")[line] ?? "")?.[1];
  return name && uri.startsWith("file:") ? join(dirname(fileURLToPath(uri)), name) : null;
}

let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk: Buffer) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString();
    buffer = buffer.subarray(end + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on("end", () => process.exit(0));
