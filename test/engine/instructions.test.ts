import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStatus, gitStatus } from "../../src/engine/git-status.ts";
import { instructionFiles, MAX_INSTRUCTIONS } from "../../src/engine/instruction-files.ts";
import { modeNotes } from "../../src/engine/mode-notes.ts";
import type { StoredMessage } from "../../src/engine/records.ts";
import { tokensOfChars } from "../../src/engine/tokens.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";
import { readTool } from "../../src/tools/read.ts";
import { type EngineHarness, engineHarness, isStep, step } from "../support/engine.ts";
import { type ChatRequest, contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let h: EngineHarness | null = null;
let model: ScriptedModel | null = null;
let box: Sandbox | null = null;
afterEach(async () => {
  await h?.close();
  await model?.close();
  box?.cleanup();
  h = model = box = null;
});

const git = (cwd: string, ...args: string[]) => {
  const run = Bun.spawnSync(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args], { cwd, stdout: "ignore", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
};
const steps = (m: ScriptedModel): ChatRequest[] => m.requests.filter((r) => isStep(r.body)).map((r) => r.body);
const systemOf = (body: ChatRequest | undefined) => contentText(body?.messages?.[0]?.content);
const toolNames = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
/** What is sent before the person's first word, in tokens as the engine estimates them (tokens.ts). */
const firstTokens = (body: ChatRequest | undefined) => tokensOfChars(systemOf(body).length) + tokensOfChars(JSON.stringify(body?.tools ?? []).length);

describe("instruction files", () => {
  test("lembas run in a subdirectory: AGENTS.md from the root down, CLAUDE.md where a directory has no AGENTS.md, each with its path, and the git status", async () => {
    model = await startModel({ replies: [step({ text: "ok" })] });
    const sandboxed = projectSandbox(model.url);
    box = sandboxed;
    const { project } = sandboxed;
    const app = join(project, "pkg", "app");
    mkdirSync(app, { recursive: true });
    writeFileSync(join(box.configDir, "AGENTS.md"), "GLOBAL: answer in English.");
    writeFileSync(join(project, "AGENTS.md"), "ROOT: use tabs.");
    writeFileSync(join(project, "CLAUDE.md"), "ROOT-CLAUDE: never sent, the root has an AGENTS.md.");
    writeFileSync(join(project, "pkg", "CLAUDE.md"), "PKG: run make check.");
    writeFileSync(join(app, "AGENTS.md"), "APP: this package is in Go.");
    git(project, "init", "-q");
    git(project, "add", "AGENTS.md");
    git(project, "commit", "-qm", "first");
    writeFileSync(join(project, "AGENTS.md"), "ROOT: use tabs.\n");
    writeFileSync(join(app, "main.go"), "package main\n");

    const result = await runLembas(box, ["run", "hi"], { cwd: app });
    expect(result.code).toBe(0);
    const system = systemOf(steps(model)[0]);
    const order = ["GLOBAL:", "## AGENTS.md\nROOT:", "## pkg/CLAUDE.md\nPKG:", "## pkg/app/AGENTS.md\nAPP:"].map((s) => system.indexOf(s));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(system).toContain(`## ${join(box.configDir, "AGENTS.md")} (the person's, for every project)`);
    expect(system).not.toContain("ROOT-CLAUDE");
    expect(system).toContain(`- working directory: ${app}`);
    expect(system).toContain("- git, at the session's start: branch main\n   M AGENTS.md\n  ?? CLAUDE.md\n  ?? pkg/");
  });

  test("the person's instructions from config.yaml come after the files; a project without git says no git status", async () => {
    h = await engineHarness({ config: { instructions: "PERSON: be terse." } });
    writeFileSync(join(h.project, "CLAUDE.md"), "CLAUDE-ROOT: a root with only CLAUDE.md.");
    h.model.push(step({ text: "ok" }));
    await (await h.session()).prompt({ text: "hi" });
    const system = systemOf(steps(h.model)[0]);
    expect(system.indexOf("## CLAUDE.md\nCLAUDE-ROOT")).toBeGreaterThan(0);
    expect(system.indexOf("## The person's instructions\nPERSON: be terse.")).toBeGreaterThan(system.indexOf("CLAUDE-ROOT"));
    expect(system).not.toContain("- git");
  });

  test("all files together are cut at 64 KiB, the nearest losing out", () => {
    const root = join(import.meta.dir, `.instructions-${process.pid}`);
    try {
      mkdirSync(join(root, "a", "b"), { recursive: true });
      writeFileSync(join(root, "AGENTS.md"), "r".repeat(40 * 1024));
      writeFileSync(join(root, "a", "AGENTS.md"), "a".repeat(40 * 1024));
      writeFileSync(join(root, "a", "b", "AGENTS.md"), "b".repeat(10));
      const files = instructionFiles(root, join(root, "a", "b"), join(root, "no-config"));
      expect(files.map((f) => f.label)).toEqual(["AGENTS.md", "a/AGENTS.md"]);
      expect(files[1]?.text).toContain("[… cut: the instruction files are limited to 64 KiB in all]");
      expect(files.reduce((n, f) => n + f.text.replace(/\n\[… cut.*$/, "").length, 0)).toBe(MAX_INSTRUCTIONS);
    } finally {
      Bun.spawnSync(["rm", "-rf", root]);
    }
  });
});

describe("instruction files that cannot be read, and the cut in bytes", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) Bun.spawnSync(["rm", "-rf", d]);
  });
  const project = () => {
    const root = mkdtempSync(join(tmpdir(), "lembas-instr-"));
    dirs.push(root);
    return root;
  };

  test("an AGENTS.md that exists but cannot be read (a directory, a FIFO) gives way to the directory's CLAUDE.md", () => {
    const root = project();
    mkdirSync(join(root, "AGENTS.md"));
    writeFileSync(join(root, "CLAUDE.md"), "ROOT-CLAUDE: read instead.");
    mkdirSync(join(root, "sub"));
    expect(Bun.spawnSync(["mkfifo", join(root, "sub", "AGENTS.md")]).exitCode).toBe(0);
    writeFileSync(join(root, "sub", "CLAUDE.md"), "SUB-CLAUDE: read instead.");
    expect(instructionFiles(root, join(root, "sub"), join(root, "no-config"))).toEqual([
      { label: "CLAUDE.md", text: "ROOT-CLAUDE: read instead." },
      { label: "sub/CLAUDE.md", text: "SUB-CLAUDE: read instead." },
    ]);
  });

  test("the 64 KiB are bytes of UTF-8, not characters, and the cut splits no character", () => {
    const root = project();
    // 40 Ki characters of two bytes each: 80 KiB.
    writeFileSync(join(root, "AGENTS.md"), "é".repeat(40 * 1024));
    const [file] = instructionFiles(root, root, join(root, "no-config"));
    expect(file?.text).toContain("[… cut: the instruction files are limited to 64 KiB in all]");
    const kept = file?.text.replace(/\n\[… cut.*$/, "") ?? "";
    expect(Buffer.byteLength(kept, "utf8")).toBe(MAX_INSTRUCTIONS);
    expect(kept).toBe("é".repeat(MAX_INSTRUCTIONS / 2));
    // An odd cut: one byte of ASCII first, so the last two-byte character would be split.
    writeFileSync(join(root, "AGENTS.md"), `x${"é".repeat(40 * 1024)}`);
    const odd = instructionFiles(root, root, join(root, "no-config"))[0]?.text.replace(/\n\[… cut.*$/, "") ?? "";
    expect(odd).toBe(`x${"é".repeat(MAX_INSTRUCTIONS / 2 - 1)}`);
  });
});

describe("attack: instruction files a hostile clone could plant", () => {
  const planted = (make: (root: string, outside: string) => void) => {
    const top = mkdtempSync(join(tmpdir(), "lembas-planted-"));
    const root = join(top, "project");
    const outside = join(top, "home");
    mkdirSync(join(root, "sub"), { recursive: true });
    mkdirSync(join(outside, ".ssh"), { recursive: true });
    writeFileSync(join(outside, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
    make(root, outside);
    return { root, top, cleanup: () => Bun.spawnSync(["rm", "-rf", top]) };
  };

  test("an AGENTS.md that is a symlink out of the project (to ~/.ssh/id_rsa) or to a secret in it (.env) is not read; one to a file of the project is", () => {
    const box = planted((root, outside) => {
      symlinkSync(join(outside, ".ssh", "id_rsa"), join(root, "AGENTS.md"));
      writeFileSync(join(root, ".env"), "TOKEN=secret\n");
      symlinkSync("../.env", join(root, "sub", "CLAUDE.md"));
    });
    try {
      expect(instructionFiles(box.root, join(box.root, "sub"), join(box.top, "no-config"))).toEqual([]);
      mkdirSync(join(box.root, "docs"));
      writeFileSync(join(box.root, "docs", "agents.md"), "Run bun test.");
      Bun.spawnSync(["rm", join(box.root, "sub", "CLAUDE.md")]);
      symlinkSync("../docs/agents.md", join(box.root, "sub", "AGENTS.md"));
      expect(instructionFiles(box.root, join(box.root, "sub"), join(box.top, "no-config"))).toEqual([{ label: "sub/AGENTS.md", text: "Run bun test." }]);
    } finally {
      box.cleanup();
    }
  });

  test("an AGENTS.md that is a FIFO does not hang the session's start", async () => {
    const box = planted((root) => {
      Bun.spawnSync(["mkfifo", join(root, "AGENTS.md")]);
      writeFileSync(join(root, "sub", "AGENTS.md"), "Nearer.");
    });
    try {
      const script = `import { instructionFiles } from ${JSON.stringify(join(import.meta.dir, "../../src/engine/instruction-files.ts"))};
console.log(JSON.stringify(instructionFiles(${JSON.stringify(box.root)}, ${JSON.stringify(join(box.root, "sub"))}, "/nonexistent")));`;
      const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit", timeout: 5_000 });
      const out = await new Response(child.stdout).text();
      expect(await child.exited).toBe(0);
      expect(JSON.parse(out)).toEqual([{ label: "sub/AGENTS.md", text: "Nearer." }]);
    } finally {
      box.cleanup();
    }
  });
});

describe("git status at the session's start", () => {
  test("attack: a repository's own config runs nothing at the session's start (core.fsmonitor, a filter's clean command)", async () => {
    const root = mkdtempSync(join(tmpdir(), "lembas-gitcfg-"));
    try {
      git(root, "init", "-q");
      writeFileSync(join(root, ".gitattributes"), "a.txt filter=evil\n");
      writeFileSync(join(root, "a.txt"), "one\n");
      git(root, "add", ".");
      git(root, "commit", "-qm", "first");
      const ran = join(root, "ran");
      git(root, "config", "core.fsmonitor", `touch '${ran}-fsmonitor'; false`);
      git(root, "config", "filter.evil.clean", `sh -c "touch '${ran}-clean'; cat"`);
      git(root, "config", "filter.evil.process", `sh -c "touch '${ran}-process'"`);
      // Its stat changed: git status would compare its content, through the filter.
      await Bun.sleep(1_100);
      writeFileSync(join(root, "a.txt"), "one\n");
      const status = await gitStatus(root);
      expect(status).toStartWith("branch main");
      expect(existsSync(`${ran}-fsmonitor`) || existsSync(`${ran}-clean`) || existsSync(`${ran}-process`)).toBe(false);
    } finally {
      Bun.spawnSync(["rm", "-rf", root]);
    }
  });

  test("the branch and at most 20 changed files, the rest counted", () => {
    const files = Array.from({ length: 25 }, (_, i) => ` M src/f${i}.ts`);
    const text = describeStatus(`## main...origin/main [ahead 1]\n${files.join("\n")}\n`) ?? "";
    const lines = text.split("\n");
    expect(lines[0]).toBe("branch main...origin/main [ahead 1]");
    expect(lines).toHaveLength(22);
    expect(lines.at(-2)).toBe(" M src/f19.ts");
    expect(lines.at(-1)).toBe("… and 5 more");
    expect(describeStatus("## main\n")).toBe("branch main\nno changes");
    expect(describeStatus("fatal: not a git repository")).toBeNull();
  });
});

describe("a prefix that stays the same", () => {
  test("two steps and a mode change: the system prompt and the tools are sent unchanged, each request starts with the one before, and the mode is a note in the conversation", async () => {
    h = await engineHarness();
    writeFileSync(join(h.project, "a.txt"), "alpha\n");
    h.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ text: "The plan: change a.txt." }),
      step({ toolCalls: [{ name: "list", arguments: {} }] }),
      step({ text: "done" }),
    );
    const session = await h.session({ mode: "plan" });
    await session.prompt({ text: "plan it" });
    session.setMode("edit");
    await session.prompt({ text: "do it" });

    const sent = steps(h.model);
    expect(sent).toHaveLength(4);
    const first = systemOf(sent[0]);
    expect(first.length).toBeGreaterThan(1500);
    for (const body of sent) {
      expect(systemOf(body).slice(0, 1500)).toBe(first.slice(0, 1500));
      expect(systemOf(body)).toBe(first);
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(sent[0]?.tools));
    }
    expect(first).not.toContain("The session is in");
    for (let i = 1; i < sent.length; i++) {
      const before = (sent[i - 1]?.messages ?? []).map((m) => JSON.stringify(m));
      const now = (sent[i]?.messages ?? []).map((m) => JSON.stringify(m));
      expect(now.slice(0, before.length)).toEqual(before);
    }
    const last = sent[3]?.messages ?? [];
    expect(contentText(last[1]?.content)).toBe("plan it\n\n[lembas] The session is in plan mode: you may only read and search, not change files or run commands. Study the task, then submit a plan with plan_submit (the goal, the files to change, the steps, how to check).");
    const users = last.filter((m) => m.role === "user").map((m) => contentText(m.content));
    expect(users).toHaveLength(2);
    expect(users[1]).toBe("do it\n\n[lembas] The session is in edit mode: file changes inside the project go ahead; commands ask the person first.");
  });

  test("a mode is said where it changed, again after a summary, and never to a model without tools", () => {
    const user = (seq: number, mode?: "plan" | "edit"): StoredMessage => ({ seq, turnId: `t${seq}`, role: "user", body: { text: `p${seq}`, ...(mode ? { mode } : {}) } });
    const model = { supportsTools: null };
    const history = [user(1, "plan"), user(2, "plan"), user(3), user(4, "edit"), user(5, "edit")];
    expect([...modeNotes(history, null, model).keys()]).toEqual([1, 4]);
    expect([...modeNotes(history, 1, model).keys()]).toEqual([2, 4]);
    expect([...modeNotes(history, 4, model).keys()]).toEqual([5]);
    expect(modeNotes(history, null, { supportsTools: false }).size).toBe(0);
  });
});

describe("sized for the window", () => {
  test("an 8k window gets the briefed core tools, and what precedes the first word is at most 2,000 tokens", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 8192 }] });
    h.model.push(step({ text: "ok" }));
    await (await h.session()).prompt({ text: "hi" });
    const [first] = steps(h.model);
    expect(toolNames(first)).toEqual(ALL_TOOLS.filter((t) => t.brief !== undefined).map((t) => t.name));
    expect(toolNames(first)).toEqual(expect.arrayContaining(["read", "write", "edit", "bash", "grep", "glob", "list", "todo", "ask_user", "plan_submit"]));
    expect(toolNames(first)).not.toContain("settings");
    expect(JSON.stringify(first?.tools)).toContain(JSON.stringify(readTool.brief));
    expect(firstTokens(first)).toBeLessThanOrEqual(2000);
  });

  test("a 128k window gets every tool with its full description", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 131_072 }] });
    h.model.push(step({ text: "ok" }));
    await (await h.session()).prompt({ text: "hi" });
    const [first] = steps(h.model);
    expect(toolNames(first)).toEqual(ALL_TOOLS.map((t) => t.name).filter((name) => !["library", "skill", "code_search", "web_search", "lsp"].includes(name))); // no library configured, no skill found, no embedding model, no web search on chat completions, no language server up
    expect(JSON.stringify(first?.tools)).toContain(JSON.stringify(readTool.description));
    expect(firstTokens(first)).toBeGreaterThan(2000);
  });
});
