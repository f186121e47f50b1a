import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/**
 * The module-level variables src/ changes, "file: name", each with why it is the process's and no
 * engine's or session's: a fact of the machine or the process looked up once, a cache of what its
 * key alone decides, a buffer reused between calls, or what must outlive every engine (a child
 * process's hold). Anything else an engine or a session holds, and hands to what uses it: two
 * engines in one process never share it.
 */
const PROCESS_WIDE: Readonly<Record<string, string>> = {
  "acp/prompt.ts: held": "the bytes of each session's prompts from their arrival to their answer (a WeakMap keyed by the session: two engines never share one)",
  "bus/index.ts: made": "the event schemas, made once on first use",
  "cli/plain-out.ts: made": "the process's one writer of stdout and one of stderr, so that what is written to each keeps its order",
  "engine/inotify.ts: libc": "the machine's C library, opened once",
  "jit-policy.ts: up": "whether the process's JavaScriptCore has its normal tier-up thresholds back, set once a process",
  "jit-policy.ts: latest": "the process's deadline for setting them back, dropped once they are",
  "engine/compaction.ts: specLengths": "each tool spec's JSON length, which the spec alone decides (a WeakMap keyed by the spec)",
  "model/body-json.ts: specJson": "each tool spec's JSON text, which the spec alone decides (a WeakMap keyed by the spec)",
  "engine/command-option-lists.ts: parsed": "each program's option list, parsed once from the constant table",
  "engine/turn-queue.ts: answerSchema": "a zod schema, made once on first use",
  "engine/git-status.ts: early": "a git status `lembas run` sets going before its modules load, before any engine; taken by the first session of that project root",
  "mcp/from-editor.ts: schemas": "zod schemas, made once on first use",
  "mcp/mcp-tool.ts: made": "a zod schema, made once on first use",
  "mcp/output-check.ts: checks": "each outputSchema's compiled check, which the schema alone decides (a WeakMap keyed by the schema)",
  "mcp/output-check.ts: validator": "the MCP SDK's JSON Schema validator, loaded once on first use",
  "mcp/stdio-transport.ts: running": "every MCP server process group, killed when the process exits, whatever engine started it",
  "mcp/stdio-transport.ts: exitHookSet": "the process's exit hook for those groups, set once",
  "project/align.ts: scratch": "a buffer reused between searches",
  "project/dir-part.ts: lowerPath": "a buffer reused between searches",
  "project/dir-part.ts: origPath": "a buffer reused between searches",
  "project/dir-part.ts: ownMasks": "a cache of each prepared index's directory-name masks, weakly keyed by the index",
  "project/kept-rows.ts: toFirst": "a buffer reused between searches",
  "project/kept-rows.ts: toLater": "a buffer reused between searches",
  "project/kept-rows.ts: toLast": "a buffer reused between searches",
  "store/checkpoint.ts: keepers": "each store connection's turns running and idle checkpoint (a WeakMap keyed by the connection, which is the process's: every engine in it shares the WAL)",
  "terminal/tcflow.ts: tcflowFn": "the C library's tcflow, looked up once",
  "tools/process-group.ts: shellCache": "the machine's shell, looked up once",
  "tools/run-mark.ts: self": "this process's mark in its commands' environment",
  "tools/sandbox-devices.ts: kept": "the machine's devices root's sandbox passes, read again when /dev changes",
  "tools/sandbox.ts: found": "the machine's sandbox tool, tried once for each PATH",
  "tools/sandbox-init.ts: libc": "the machine's C library, opened once (pidfds of the sandboxes' PID 1s)",
  "tools/sandbox-sockets.ts: fromPasswd": "the user's name and home from /etc/passwd, read once a process",
  "tools/sandbox.ts: withModes": "whether each bwrap sets a tmpfs's mode (--perms), asked once a process",
  "tools/sandbox.ts: said": "that commands run without the sandbox is said once a process, for each reason",
  "tools/search.ts: engineCache": "the machine's ripgrep, looked up once",
  "tools/task.ts: withAgents": "the task tool for a set of custom agents, which that set alone decides (a cache of 16 sets at most)",
  "tools/tool.ts: schemas": "each tool's JSON schema, made once (a WeakMap keyed by the tool)",
  "tools/watchdog.ts: watchdog": "the process's one watchdog, which stops its commands' groups if the process dies",
  "tools/watchdog.ts: watched": "the process groups and sandboxes' PID 1s in that watchdog's care",
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/**
 * The module-level collections a file adds to or takes from, and its module-level `let`s it assigns
 * again: "file: name".
 */
function changedAtModuleLevel(): string[] {
  const out: string[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, "utf8");
    const rel = relative(SRC, file);
    for (const m of text.matchAll(/^(?:export )?(const|let) (\w+)\b([^\n]*)/gm)) {
      const [declaration = "", kind, name = "", rest = ""] = m;
      const others = text.replace(declaration, "");
      const collection = /^\s*(?::[^=]+)?=\s*new (?:Map|Set|WeakMap|WeakSet)\b/.test(rest);
      const changed =
        kind === "let"
          ? new RegExp(`(?<![.\\w])${name}\\s*(?:\\?\\?=|\\+=|-=|=(?!=))`).test(others)
          : collection && new RegExp(`(?<![.\\w])${name}\\.(?:set|add|delete|clear)\\(`).test(others);
      if (changed) out.push(`${rel}: ${name}`);
    }
  }
  return out.sort();
}

describe("module-level state", () => {
  test("no module keeps state of its own but what is the process's (listed with why): an engine holds the rest and hands it on", () => {
    expect(changedAtModuleLevel().filter((found) => !(found in PROCESS_WIDE))).toEqual([]);
  });

  test("every variable listed as the process's is still there", () => {
    const found = new Set(changedAtModuleLevel());
    expect(Object.keys(PROCESS_WIDE).filter((name) => !found.has(name))).toEqual([]);
  });
});
