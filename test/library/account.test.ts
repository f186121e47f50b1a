import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type LibraryMcp, libraryMcp } from "../support/library-mcp.ts";
import { contentText } from "../support/model.ts";
import type { RunResult } from "../support/run.ts";
import { type LibraryBox, libraryBox } from "./support.ts";

const TOKEN = "tok-library-secret-5f2a";
const PASSAGES = [
  { text: "A request that fails with 503 is retried three times.", title: "Retry policy", url: "https://docs.example/retry" },
  { text: "Backoff doubles each time.", title: "Backoff", path: "handbook/backoff.md" },
];

let box: LibraryBox;
let instance: Instance | null = null;
let library: LibraryMcp;
const outputs: RunResult[] = [];

beforeEach(async () => {
  box = await libraryBox();
  library = libraryMcp(PASSAGES);
  outputs.length = 0;
});
afterEach(async () => {
  await instance?.close();
  instance = null;
  await box.close();
});

async function lembas(args: string[]): Promise<RunResult> {
  const result = await box.lembas(args);
  outputs.push(result);
  return result;
}

async function loggedIn(opts: { tokenScopes?: string[]; mcp?: boolean } = {}): Promise<void> {
  instance = await startInstance({ token: TOKEN, ...(opts.mcp === false ? {} : { mcp: library.handler }), ...(opts.tokenScopes ? { tokenScopes: opts.tokenScopes } : {}) });
  const login = await lembas(["login", instance.url, "--token", TOKEN, "--name", "acct"]);
  expect(login.code).toBe(0);
}

type JsonEvent = { type: string; name?: string; output?: string; isError?: boolean };

function toolNames(body: { tools?: unknown }): string[] {
  return (Array.isArray(body.tools) ? body.tools : []).map((t: { function: { name: string } }) => t.function.name);
}

/** A turn that calls the library tool once: what the tool answered, and the tools the first step offered. */
async function libraryTurn(): Promise<{ end: JsonEvent | undefined; offered: string[]; result: RunResult }> {
  box.model.push(step({ toolCalls: [{ name: "library", arguments: { query: "how often is a failed request retried", limit: 2 } }] }), step({ text: "Three times." }));
  const result = await lembas(["run", "--yes", "--format", "json", "how are requests retried?"]);
  const steps = box.model.requests.filter((r) => isStep(r.body));
  const events = result.stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as JsonEvent);
  return { end: events.find((e) => e.type === "tool_end" && e.name === "library"), offered: toolNames(steps[0]?.body ?? {}), result };
}

/** Every file lembas wrote in its state directory but the database (which keeps the token by design). */
function stateFilesText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.startsWith("lembas.db")) texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(box.stateDir);
  return texts.join("\n");
}

function expectNoToken(): void {
  for (const r of outputs) expect(r.stdout + r.stderr).not.toContain(TOKEN);
  expect(stateFilesText()).not.toContain(TOKEN);
}

describe("the account's library", () => {
  test("a login whose token has the library scope, no library: set: the turn searches the instance's /mcp with the token, and the passages cite their sources", async () => {
    await loggedIn({ tokenScopes: ["chat", "library"] });
    expect(outputs[0]?.stdout).toContain("the token has the account's library");
    const { end, offered, result } = await libraryTurn();
    expect(result.code).toBe(0);
    expect(offered).toContain("library");
    // The instance's /mcp runs as a session server too, but its library tool is offered once: as `library`.
    expect(offered.filter((name) => name.startsWith("mcp__acct__"))).toEqual([]);
    expect(end?.isError).toBeFalsy();
    expect(end?.output).toContain("[1] Retry policy — https://docs.example/retry (score ");
    expect(end?.output).toContain("retried three times");
    expect(end?.output).toContain("[2] Backoff — handbook/backoff.md (score ");
    expect(end?.output).toContain("the documents of the person's account");
    expect(library.calls).toEqual([{ args: { query: "how often is a failed request retried", limit: 2 }, authorization: `Bearer ${TOKEN}` }]);
    const sent = box.model.requests.filter((r) => isStep(r.body))[1]?.body.messages?.find((m) => m.role === "tool");
    expect(contentText(sent?.content)).toContain("Retry policy — https://docs.example/retry");
    // The device's library was not asked.
    expect(box.model.embeddingRequests).toHaveLength(0);
    const doctor = await lembas(["doctor"]);
    expect(doctor.stdout).toContain(`ok   library: the account's, on acct (${instance?.url}/mcp): its token has the library scope`);
    expectNoToken();
  });

  test("the same passages as JSON text, and lembas library search says which library it searched", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    library.mode = "json-text";
    const found = await lembas(["library", "search", "retry", "--limit", "1"]);
    expect(found.code).toBe(0);
    expect(found.stderr).toBe(`lembas: searching the account's library on acct (${instance?.url}) (--local searches the device's)\n`);
    expect(found.stdout).toContain("Retry policy — https://docs.example/retry  (score ");
    expect(found.stdout).not.toContain("Backoff");
    expect(library.calls[0]?.args).toEqual({ query: "retry", limit: 1 });
    expectNoToken();
  });

  test("an instance that lists no scopes, but whose /mcp lists a library tool: the account's library", async () => {
    await loggedIn();
    const doctor = await lembas(["doctor"]);
    expect(doctor.stdout).toContain(`ok   library: the account's, on acct (${instance?.url}/mcp): its /mcp lists a library tool`);
    const { end } = await libraryTurn();
    expect(end?.output).toContain("[1] Retry policy — https://docs.example/retry");
  });

  function localNotes(): Promise<RunResult> {
    writeFileSync(join(box.project, "notes.md"), "# Notes\n\nA failed request is retried five times locally.\n");
    return lembas(["library", "add", "--local", "notes.md"]);
  }

  test("library: local written stays local, though the token has the library scope", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    appendFileSync(join(box.configDir, "config.yaml"), "library: local\n");
    expect((await localNotes()).code).toBe(0);
    const { end } = await libraryTurn();
    expect(end?.output).toContain("[1] notes.md:");
    // The session starts the instance's /mcp as one of its MCP servers all the same; its library tool is not called.
    expect(library.calls).toHaveLength(0);
  });

  test("a token whose scopes leave the library out: the device's library", async () => {
    await loggedIn({ tokenScopes: ["chat"] });
    expect(outputs[0]?.stdout).not.toContain("account's library");
    expect((await localNotes()).code).toBe(0);
    expect((await libraryTurn()).end?.output).toContain("[1] notes.md:");
    expect(library.calls).toHaveLength(0);
  });

  test("no scopes listed and a /mcp without a library tool: the device's library", async () => {
    library.listed = false;
    await loggedIn();
    expect((await localNotes()).code).toBe(0);
    expect((await libraryTurn()).end?.output).toContain("[1] notes.md:");
    expect(library.calls).toHaveLength(0);
  });

  test("library: lembas with no login that has it: a sentence from library search and doctor, and no library tool", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "library: lembas\n");
    const search = await lembas(["library", "search", "retry"]);
    expect(search.code).toBe(1);
    expect(search.stderr).toContain("library: lembas is set, but no login's token has the library scope: lembas login to an instance with a device token that has it, or set library: local");
    const doctor = await lembas(["doctor"]);
    expect(doctor.stdout).toContain("fix  library: lembas is set, but no login's token has the library scope — lembas login to an instance with a device token that has it, or set library: local in config.yaml");
    box.model.push(step({ text: "fine" }));
    expect((await lembas(["run", "--yes", "hello"])).code).toBe(0);
    expect(toolNames(box.model.requests.filter((r) => isStep(r.body))[0]?.body ?? {})).not.toContain("library");
  });

  test("add, list and remove say the account's documents are managed in the web UI; --local works on the device's", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    writeFileSync(join(box.project, "a.md"), "words\n");
    const refused = await lembas(["library", "add", "a.md"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the agent uses the account's library on acct: its documents are managed in the web UI (--local works on the device's own library)");
    expect((await lembas(["library", "list"])).code).toBe(1);
    expect((await lembas(["library", "add", "--local", "a.md"])).code).toBe(0);
    expect((await lembas(["library", "list", "--local"])).stdout).toContain("a.md");
  });
});

describe("the account's library: faults are a sentence, never a crashed turn", () => {
  test("the instance down at search: a tool error naming it", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    await instance?.stop();
    const { end, result } = await libraryTurn();
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(true);
    expect(end?.output).toContain(`The library could not be searched: the account's library on acct (${instance?.url}) could not be reached:`);
    expectNoToken();
  });

  test("the token refused (401): a tool error that says so, and no token", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    instance?.setToken("another-token");
    const { end, result } = await libraryTurn();
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(true);
    expect(end?.output).toContain("answered HTTP 401 (its credentials were refused)");
    const search = await lembas(["library", "search", "retry"]);
    expect(search.code).toBe(1);
    expect(search.stderr).toContain("answered HTTP 401");
    expectNoToken();
  });

  test("a search that hangs: given up after mcp_timeouts.call, a tool error, and the turn goes on", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    appendFileSync(join(box.configDir, "config.yaml"), "mcp_timeouts:\n  call: 1\n");
    library.mode = "hang";
    const { end, result } = await libraryTurn();
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(true);
    expect(end?.output).toContain("did not answer the library_search call within 1 s; the call was cancelled.");
  });

  test("a malformed answer and an error result: sentences", async () => {
    await loggedIn({ tokenScopes: ["library"] });
    library.mode = "malformed";
    const malformed = await lembas(["library", "search", "retry"]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("the library on acct answered something that is not passages");
    library.mode = "error";
    const { end } = await libraryTurn();
    expect(end?.isError).toBe(true);
    expect(end?.output).toContain(`the account's library on acct (${instance?.url}) failed: the library index is rebuilding`);
  });
});
