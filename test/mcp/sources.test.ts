import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { expandVars } from "../../src/mcp/expand.ts";
import { EDITOR_MCP_CAPABILITIES, editorServers, LINK_MCP_CAPABILITIES } from "../../src/mcp/from-editor.ts";
import { configServers } from "../../src/mcp/from-config.ts";
import { approveProjectServers, projectServers } from "../../src/mcp/from-project.ts";
import { mergeServers, shownHeaders } from "../../src/mcp/servers.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { trustDir } from "../../src/store/trust.ts";

let dir: string;
let db: Db;
let root: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-mcp-"));
  db = openDb(join(dir, "lembas.db"));
  root = join(dir, "project");
  mkdirSync(root);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the editor's session/new mcpServers", () => {
  test("a stdio server as ACP types it becomes a spec of source editor, its env a record", () => {
    const made = editorServers([{ name: "git", command: "/usr/bin/mcp-git", args: ["--repo", "."], env: [{ name: "TOKEN", value: "t" }], _meta: { x: 1 } }]);
    expect(made).toEqual({ ok: true, specs: [{ name: "git", source: "editor", transport: { type: "stdio", command: "/usr/bin/mcp-git", args: ["--repo", "."], env: { TOKEN: "t" } } }] });
  });

  test("none, or an empty list, is no servers", () => {
    expect(editorServers(undefined)).toEqual({ ok: true, specs: [] });
    expect(editorServers([])).toEqual({ ok: true, specs: [] });
  });

  test("a name a model's function names cannot carry is made safe", () => {
    const made = editorServers([{ name: "My Server.v2", command: "x", args: [], env: [] }]);
    expect(made.ok && made.specs[0]?.name).toBe("My_Server_v2");
  });

  test("a malformed entry is refused with a sentence naming the entry and the field", () => {
    expect(editorServers([{ name: "git", command: "x", env: [] }])).toEqual({ ok: false, error: 'mcpServers[0] ("git"): args is missing' });
    expect(editorServers([{ name: "git", command: "x", args: [], env: { A: "1" } }])).toEqual({ ok: false, error: 'mcpServers[0] ("git"): env must be a list of {name, value}' });
    expect(editorServers([{ name: "git", command: "", args: [], env: [] }])).toEqual({ ok: false, error: 'mcpServers[0] ("git"): command must not be empty' });
    expect(editorServers(["git"])).toEqual({ ok: false, error: 'mcpServers[0] must be an object: {name, command, args, env} or {type: "http", name, url, headers}' });
    expect(editorServers([{ type: "ws", name: "w", url: "ws://x" }])).toEqual({ ok: false, error: 'mcpServers[0] ("w") has type "ws"; an MCP server is a command (no type), "http" or "sse"' });
    expect(editorServers({})).toEqual({ ok: false, error: "mcpServers must be a list of MCP servers" });
  });

  test("two servers of one name are refused", () => {
    const made = editorServers([
      { name: "git", command: "a", args: [], env: [] },
      { name: "git", command: "b", args: [], env: [] },
    ]);
    expect(made).toEqual({ ok: false, error: 'mcpServers[1] ("git"): the name "git" is taken by an earlier server of mcpServers; each needs its own' });
  });

  test("an http server is refused where the capabilities say http false (the link's), with the sentence saying so", () => {
    const http = editorServers([{ type: "http", name: "docs", url: "https://docs.example/mcp", headers: [] }], LINK_MCP_CAPABILITIES);
    expect(http.ok).toBe(false);
    expect(!http.ok && http.error).toBe(
      'mcpServers[0] ("docs") is an http server, and lembas takes only stdio servers here (its initialize answer says mcpCapabilities {"http":false,"sse":false}): give lembas the server as a command, or add its url to config.yaml\'s mcp:',
    );
  });

  test("an sse server is refused whatever the capabilities, saying to give its streamable HTTP url or a command", () => {
    const sse = editorServers([{ type: "sse", name: "s", url: "https://s.example/sse", headers: [] }]);
    expect(sse).toEqual({
      ok: false,
      error: 'mcpServers[0] ("s") is an sse server, and lembas does not speak MCP over SSE (its initialize answer says mcpCapabilities.sse false): give the server\'s streamable HTTP url as type "http" if it has one, or the server as a command',
    });
    expect(editorServers([{ type: "sse", name: "s", url: "https://s.example/sse", headers: [] }], { http: true, sse: true }).ok).toBe(false);
  });

  test("an http server is taken from an editor (the capabilities serve --stdio says), its headers a record", () => {
    expect(EDITOR_MCP_CAPABILITIES).toEqual({ http: true, sse: false });
    const made = editorServers([{ type: "http", name: "docs", url: "https://docs.example/mcp", headers: [{ name: "X-Key", value: "k" }] }]);
    expect(made).toEqual({ ok: true, specs: [{ name: "docs", source: "editor", transport: { type: "http", url: "https://docs.example/mcp", headers: { "X-Key": "k" } } }] });
  });
});

describe("config.yaml's mcp:", () => {
  const file = "/x/config.yaml";

  test("a command and an url become specs of source config, ${VAR} expanded from the environment", () => {
    const config = parseConfig(file, `mcp:\n  git:\n    command: uvx\n    args: [mcp-server-git, --repository, "\${REPO:-.}"]\n    env: { TOKEN: "\${GIT_TOKEN}" }\n  docs:\n    url: https://docs.example/mcp\n    headers: { X-Key: "\${DOCS_KEY}" }\n`);
    const made = configServers(config, { GIT_TOKEN: "g", DOCS_KEY: "d" });
    expect(made.problems).toEqual([]);
    expect(made.specs).toEqual([
      { name: "git", source: "config", transport: { type: "stdio", command: "uvx", args: ["mcp-server-git", "--repository", "."], env: { TOKEN: "g" } } },
      { name: "docs", source: "config", transport: { type: "http", url: "https://docs.example/mcp", headers: { "X-Key": "d" } } },
    ]);
  });

  test("an url may be a variable, checked once expanded", () => {
    const config = parseConfig(file, 'mcp:\n  docs:\n    url: "${DOCS_URL:-http://127.0.0.1:3000/mcp}"\n  bad:\n    url: "${BAD}"\n');
    const made = configServers(config, { BAD: "not a url" });
    expect(made.specs).toEqual([{ name: "docs", source: "config", transport: { type: "http", url: "http://127.0.0.1:3000/mcp", headers: {} } }]);
    expect(made.problems).toEqual([{ name: "bad", problem: "config.yaml's mcp.bad: not a url is not an http(s) URL" }]);
  });

  test("a variable that is not set makes that server a problem that names it, and the others still come", () => {
    const config = parseConfig(file, `mcp:\n  git:\n    command: uvx\n    env: { TOKEN: "\${GIT_TOKEN}" }\n  other:\n    command: other\n`);
    const made = configServers(config, {});
    expect(made.specs.map((s) => s.name)).toEqual(["other"]);
    expect(made.problems).toEqual([{ name: "git", problem: "config.yaml's mcp.git: variable GIT_TOKEN is not set (write ${NAME:-default} for a default)" }]);
  });

  test("a bad entry is one line naming the key", () => {
    expect(() => parseConfig(file, "mcp:\n  git:\n    args: [x]\n")).toThrow("/x/config.yaml: mcp.git: needs command (a server lembas starts) or url (one it reaches over HTTP)");
    expect(() => parseConfig(file, "mcp:\n  git:\n    command: x\n    url: http://y\n")).toThrow("mcp.git: takes command or url, not both");
    expect(() => parseConfig(file, "mcp:\n  git:\n    command: x\n    comand: y\n")).toThrow("mcp.git.comand: is not a known key (did you mean mcp.git.command?)");
    expect(() => parseConfig(file, "mcp:\n  docs:\n    url: ftp://y\n")).toThrow("mcp.docs.url: must be an http(s) URL");
    expect(() => parseConfig(file, "mcp:\n  docs:\n    url: http://y\n    args: [a]\n")).toThrow("mcp.docs: args and env are for a command");
  });
});

describe("${VAR} expansion, as Claude Code's .mcp.json does it", () => {
  test("a value, a default for an unset or empty variable, and what is missing", () => {
    expect(expandVars("a ${X} b", { X: "1" })).toEqual({ ok: true, text: "a 1 b" });
    expect(expandVars("${X:-def}", {})).toEqual({ ok: true, text: "def" });
    expect(expandVars("${X:-def}", { X: "" })).toEqual({ ok: true, text: "def" });
    expect(expandVars("${X:-}", {})).toEqual({ ok: true, text: "" });
    expect(expandVars("$X and ${not a var}", {})).toEqual({ ok: true, text: "$X and ${not a var}" });
    expect(expandVars("${A}${B}${A}", { B: "b" })).toEqual({ ok: false, missing: ["A"] });
  });
});

describe("a project's .mcp.json", () => {
  const writeMcp = (servers: unknown) => writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));

  test("in an untrusted project it is ignored", () => {
    writeMcp({ git: { command: "uvx", args: ["mcp-server-git"] } });
    expect(projectServers(root, db, {})).toEqual({ state: "untrusted", specs: [], needsApproval: null, problems: [] });
  });

  test("no file, trusted or not, is no servers and nothing to ask", () => {
    trustDir(db, root);
    expect(projectServers(root, db, {})).toEqual({ state: "none", specs: [], needsApproval: null, problems: [] });
  });

  test("in a trusted one it is asked once, with what the question shows, then remembered", () => {
    trustDir(db, root);
    writeMcp({ git: { command: "uvx", args: ["mcp-server-git", "${REPO:-.}"], env: { TOKEN: "${GIT_TOKEN}" } }, docs: { type: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } } });
    const first = projectServers(root, db, { GIT_TOKEN: "g", DOCS_TOKEN: "d" });
    expect(first.state).toBe("needs-approval");
    expect(first.specs).toEqual([]);
    expect(first.needsApproval).toEqual({
      path: join(root, ".mcp.json"),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      servers: [
        { name: "git", what: "uvx mcp-server-git '${REPO:-.}'", env: ["TOKEN"], headers: [], reads: ["REPO", "GIT_TOKEN"] },
        { name: "docs", what: "https://docs.example/mcp", env: [], headers: ["Authorization"], reads: ["DOCS_TOKEN"] },
      ],
    });
    approveProjectServers(db, root, first.needsApproval?.hash ?? "");
    const second = projectServers(root, db, { GIT_TOKEN: "g", DOCS_TOKEN: "d" });
    expect(second).toEqual({
      state: "approved",
      needsApproval: null,
      problems: [],
      specs: [
        { name: "git", source: "project", transport: { type: "stdio", command: "uvx", args: ["mcp-server-git", "."], env: { TOKEN: "g" }, cwd: root } },
        { name: "docs", source: "project", transport: { type: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer d" } } },
      ],
    });
  });

  test("asked again when the file changes, and not when it is changed back", () => {
    trustDir(db, root);
    writeMcp({ git: { command: "uvx" } });
    const before = projectServers(root, db, {}).needsApproval;
    approveProjectServers(db, root, before?.hash ?? "");
    writeMcp({ git: { command: "uvx", args: ["--evil"] } });
    const changed = projectServers(root, db, {});
    expect(changed.state).toBe("needs-approval");
    expect(changed.needsApproval?.hash).not.toBe(before?.hash);
    expect(changed.needsApproval?.servers.map((s) => s.what)).toEqual(["uvx --evil"]);
    writeMcp({ git: { command: "uvx" } });
    expect(projectServers(root, db, {}).state).toBe("approved");
  });

  test("the approval holds for the file through a symlinked root too", () => {
    trustDir(db, root);
    writeMcp({ git: { command: "uvx" } });
    const link = join(dir, "link");
    symlinkSync(root, link);
    approveProjectServers(db, link, projectServers(link, db, {}).needsApproval?.hash ?? "");
    expect(projectServers(root, db, {}).state).toBe("approved");
  });

  test("a file that is not .mcp.json is said, and a bad server does not hide the good ones", () => {
    trustDir(db, root);
    writeFileSync(join(root, ".mcp.json"), "{ not json");
    const bad = projectServers(root, db, {});
    expect(bad.state).toBe("invalid");
    expect(bad.problems[0]?.problem).toStartWith(`${join(root, ".mcp.json")} is not JSON`);
    writeMcp({ good: { command: "ok" }, bad: { args: ["x"] }, old: { type: "sse", url: "https://x/sse" } });
    const some = projectServers(root, db, {});
    expect(some.needsApproval?.servers.map((s) => s.name)).toEqual(["good"]);
    expect(some.problems.map((p) => p.name)).toEqual(["bad", "old"]);
    expect(some.problems[1]?.problem).toContain("an sse server");
  });

  test("an approved server whose variable is not set is a problem, not started", () => {
    trustDir(db, root);
    writeMcp({ git: { command: "uvx", env: { TOKEN: "${GIT_TOKEN}" } } });
    approveProjectServers(db, root, projectServers(root, db, {}).needsApproval?.hash ?? "");
    const made = projectServers(root, db, {});
    expect(made.specs).toEqual([]);
    expect(made.problems[0]?.problem).toContain("variable GIT_TOKEN is not set");
  });
});

describe("every source together", () => {
  test("one server a name: the editor's over the project's over config.yaml's over the instance's", () => {
    const spec = (name: string, source: "editor" | "project" | "config" | "instance") => ({ name, source, transport: { type: "stdio" as const, command: source, args: [], env: {} } });
    const merged = mergeServers([spec("a", "instance"), spec("a", "config"), spec("b", "config"), spec("a", "editor")]);
    expect(merged.specs.map((s) => `${s.name}:${s.source}`)).toEqual(["a:editor", "b:config"]);
    expect(merged.shadowed.map((s) => `${s.spec.source}<${s.by}`)).toEqual(["config<editor", "instance<editor"]);
  });

  test("a secret header is never shown", () => {
    const spec = { name: "i", source: "instance" as const, transport: { type: "http" as const, url: "http://x/mcp", headers: { Authorization: "Bearer tok", "X-A": "a" } }, secretHeaders: ["authorization"] };
    expect(shownHeaders(spec)).toEqual({ Authorization: "(secret)", "X-A": "a" });
  });
});
