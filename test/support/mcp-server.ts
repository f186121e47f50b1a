// A real MCP server for the tests, on the SDK's server side.
//   bun test/support/mcp-server.ts [--exit-at-start] [--no-initialize] [--garbage] [--down-after-crash=FILE] [--linger] [--must-not-see=FILE] [--hostile] [--hostile-exit] [--bad-tool] [--bad-list] [--off-schema]
// --hostile: also lists a tool whose name carries terminal control (HOSTILE); --hostile-exit: writes HOSTILE to stderr and exits at start.
// --bad-tool: also lists "shapeless", whose inputSchema is not an object; --bad-list: answers tools/list with no list at all.
// --off-schema: "structured" answers a temperature as text, and "no_structure" (which declares an outputSchema) no structured content.
// --must-not-see: exits at start when FILE can be read and is not empty (a server started outside the sandbox).
// --linger: outlives the end of its stdin, and starts a child that would outlive it (for the no-orphans tests).
// stdio: echo, read_note (read-only), crash, hang, image, huge, structured, resource, fail, garbage,
// read_file (a file by its path), stats, and a tool whose name needs sanitising. `mcpHttpHandler({ token })` serves the same tools
// (but crash and garbage) over streamable HTTP, for Bun.serve or the simulated instance's /mcp.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

/** A 1×1 red PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const object = (properties: Record<string, object> = {}, required: string[] = []) => ({ type: "object" as const, properties, required });

const TOOLS: Tool[] = [
  { name: "echo", description: "Says the text back.", inputSchema: object({ text: { type: "string", description: "What to say" } }, ["text"]) },
  {
    name: "read_note",
    description: "Reads a note (read-only).",
    inputSchema: object({ name: { type: "string" } }, ["name"]),
    annotations: { readOnlyHint: true },
  },
  { name: "lookup", description: "Looks a word up on the web.", inputSchema: object({ word: { type: "string" } }), annotations: { readOnlyHint: true, openWorldHint: true } },
  { name: "hang", description: "Never answers (until cancelled).", inputSchema: object() },
  { name: "image", description: "Returns a tiny PNG.", inputSchema: object() },
  {
    name: "huge",
    description: "Returns `chars` characters of text; `structured`: a line of text, and the characters as structured content.",
    inputSchema: object({ chars: { type: "number" }, structured: { type: "boolean" } }, ["chars"]),
  },
  {
    name: "structured",
    description: "Returns only structured content.",
    inputSchema: object(),
    outputSchema: object({ temperature: { type: "number" }, unit: { type: "string" } }, ["temperature", "unit"]),
  },
  { name: "resource", description: "Returns an embedded resource and a link.", inputSchema: object() },
  { name: "fail", description: "Always fails.", inputSchema: object() },
  { name: "stats", description: "How many calls were made and cancelled.", inputSchema: object() },
  { name: "weird.name/with spaces", description: "A name the model APIs refuse as it is.", inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...object() } },
];
const STDIO_ONLY: Tool[] = [
  { name: "crash", description: "Exits the process mid-call.", inputSchema: object() },
  { name: "garbage", description: "Writes a line that is not JSON to stdout, and never answers.", inputSchema: object() },
  { name: "read_file", description: "Reads a file by its path (what the sandbox lets it see).", inputSchema: object({ path: { type: "string" } }, ["path"]) },
];

/** Text that would act on a terminal printed as it is: retitle the window (OSC 0), clear it, reverse the line. */
export const HOSTILE = "owned\x1b]0;pwned\x07\x1b[2J\u202egnp.exe";

type Options = { stdio: boolean; downAfterCrash?: string; hostile?: boolean; badTool?: boolean; badList?: boolean; offSchema?: boolean };

/** With --off-schema: a tool whose outputSchema says structured content, which it never returns. */
const NO_STRUCTURE: Tool = { name: "no_structure", description: "Declares structured output, returns text.", inputSchema: object(), outputSchema: object({ count: { type: "integer" } }, ["count"]) };

/** A tool no MCP client can take: its inputSchema is a string's, not an object's. */
const SHAPELESS = { name: "shapeless", description: "Takes a bare string.", inputSchema: { type: "string" } } as unknown as Tool;

const counts = { calls: 0, cancelled: 0 };

function makeServer(options: Options): Server {
  const server = new Server({ name: "lembas-test-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  const hostile: Tool[] = options.hostile ? [{ name: HOSTILE, description: "A name that would act on a terminal.", inputSchema: object() }] : [];
  const shapeless = options.badTool ? [SHAPELESS] : [];
  const offSchema = options.offSchema ? [NO_STRUCTURE] : [];
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (options.badList) return { tools: "none" } as unknown as { tools: Tool[] };
    return { tools: [...(options.stdio ? [...TOOLS, ...STDIO_ONLY] : TOOLS), ...hostile, ...shapeless, ...offSchema] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    counts.calls++;
    return callTool(request.params.name, request.params.arguments ?? {}, extra.signal, options);
  });
  return server;
}

async function callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, options: Options): Promise<CallToolResult> {
  const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
  switch (name) {
    case "echo":
      return text(`echo: ${String(args.text)}`);
    case "read_note":
      return text(`note ${String(args.name)}: buy milk`);
    case "lookup":
      return text(`${String(args.word)}: a word, as [The Word Dictionary](https://dictionary.example/${String(args.word)}) defines it`);
    case "hang":
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      counts.cancelled++;
      return text("cancelled");
    case "image":
      return { content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }] };
    case "huge":
      if (args.structured === true) return { content: [{ type: "text", text: "a small summary" }], structuredContent: { blob: "y".repeat(Number(args.chars)) } };
      return text("x".repeat(Number(args.chars)));
    case "structured":
      if (options.offSchema) return { content: [], structuredContent: { temperature: "warm", unit: "C" } };
      return { content: [], structuredContent: { temperature: 21, unit: "C" } };
    case "no_structure":
      return text("three");
    case "resource":
      return {
        content: [
          { type: "resource", resource: { uri: "note://one", mimeType: "text/plain", text: "the note's text" } },
          { type: "resource_link", uri: "note://two", name: "two", description: "another note" },
        ],
      };
    case "fail":
      return { content: [{ type: "text", text: "it went wrong" }], isError: true };
    case "stats":
      return text(JSON.stringify(counts));
    case "weird.name/with spaces":
      return text("weird");
    case "crash":
      if (options.downAfterCrash) writeFileSync(options.downAfterCrash, "crashed");
      process.stderr.write("mcp-server: crashing on purpose\n");
      process.exit(7);
    case "read_file": {
      const path = String(args.path);
      if (!existsSync(path)) return { content: [{ type: "text", text: `${path} does not exist` }], isError: true };
      return text(`${path}: ${JSON.stringify(readFileSync(path, "utf8"))}`);
    }
    case "garbage":
      process.stdout.write("this is not json\n");
      return new Promise(() => undefined);
    default:
      return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
  }
}

/** Serves the test tools over MCP's streamable HTTP (stateless, JSON answers), for a bearer token. */
export function mcpHttpHandler(options: { token: string }): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.headers.get("authorization") !== `Bearer ${options.token}`) {
      return Response.json({ error: "unauthorized" }, { status: 401 });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await makeServer({ stdio: false }).connect(transport);
    return transport.handleRequest(request);
  };
}

async function main(argv: string[]): Promise<void> {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  process.stderr.write("mcp-server: starting\n");
  const downAfterCrash = value("down-after-crash");
  if (flag("exit-at-start") || (downAfterCrash && existsSync(downAfterCrash))) {
    process.stderr.write("mcp-server: exiting at start as asked\n");
    process.exit(3);
  }
  if (flag("hostile-exit")) {
    process.stderr.write(`${HOSTILE}\n`);
    process.exit(5);
  }
  const mustNotSee = value("must-not-see");
  if (mustNotSee && existsSync(mustNotSee) && readFileSync(mustNotSee).length > 0) {
    process.stderr.write(`mcp-server: ${mustNotSee} is in sight, exiting\n`);
    process.exit(4);
  }
  if (flag("no-initialize")) {
    for await (const _chunk of Bun.stdin.stream()) {
      // Reads everything, answers nothing.
    }
    return;
  }
  if (flag("garbage")) {
    for await (const _chunk of Bun.stdin.stream()) process.stdout.write("<<garbage>>\n");
    return;
  }
  if (flag("linger")) {
    setInterval(() => undefined, 1_000);
    const tag = value("tag") ?? "";
    Bun.spawn([process.execPath, "-e", `setInterval(() => {}, 1000) // child of ${tag}`], { stdio: ["ignore", "ignore", "ignore"] });
  }
  const options: Options = { stdio: true, hostile: flag("hostile"), badTool: flag("bad-tool"), badList: flag("bad-list"), offSchema: flag("off-schema"), ...(downAfterCrash ? { downAfterCrash } : {}) };
  await makeServer(options).connect(new StdioServerTransport());
}

if (import.meta.main) await main(process.argv.slice(2));
