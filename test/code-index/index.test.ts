import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CodeIndex } from "../../src/code-index/project-index.ts";
import { queryWords } from "../../src/code-index/unindexed-grep.ts";
import { Config } from "../../src/config/schema.ts";
import { embeddingTarget, type TargetResult } from "../../src/library/embedding-target.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { codeFiles } from "../../src/store/code-files.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

let dir: string;
let root: string;
let model: ScriptedModel;
let target: TargetResult;
let db: Db;
let index: CodeIndex | null = null;
let said: string[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-code-index-"));
  root = join(dir, "project");
  mkdirSync(join(root, ".git"), { recursive: true });
  model = await startModel();
  target = embeddingTarget(Config.parse({ connections: { test: { base_url: model.url } }, embedding: "test/e" }), [], {});
  db = openDb(join(dir, "lembas.db"));
  said = [];
});
afterEach(async () => {
  await index?.stop();
  await index?.ended();
  index = null;
  db.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

function files(tree: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

function open(options: { batchSize?: number; backoffMs?: number } = {}): CodeIndex {
  index = new CodeIndex({
    db,
    root,
    target: () => target,
    protectedPaths: protectedPaths([], []),
    say: (line) => said.push(line),
    ...(options.batchSize ? { embed: { batchSize: options.batchSize } } : {}),
    ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
  });
  return index;
}

const search = (i: CodeIndex, query: string, path?: string) => i.search(query, { limit: 3, ...(path ? { path } : {}) }, AbortSignal.timeout(60_000));

/** Waits until `ready` holds, checking after each embeddings request the server takes. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await Bun.sleep(5);
}

const USERS = `import { db } from "./db";

/** Takes a customer out of the table. */
export function removeUser(id: string): void {
  db.users.splice(db.users.indexOf(id), 1);
}
`;
const MATH = `export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function mean(values: number[]): number {
  return sum(values) / values.length;
}
`;
const HTTP = `export async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  return response.json();
}
`;

describe("the code index", () => {
  test("finds a function by its purpose where grep for the query's words finds nothing, citing its lines", async () => {
    files({ "src/users.ts": USERS, "src/math.ts": MATH, "src/http.ts": HTTP, "README.md": "# Tools\n\nSmall helpers.\n" });
    const i = open();
    await i.settled();
    const query = "erase an account";
    // grep: none of the query's words is in the code.
    for (const text of [USERS, MATH, HTTP]) for (const word of queryWords(query)) expect(text.toLowerCase()).not.toContain(word);
    const answer = await search(i, query);
    expect(answer.notes.filter((note) => !note.includes("weaker"))).toEqual([]);
    expect(answer.hits[0]).toMatchObject({ path: "src/users.ts", startLine: 3, endLine: 6 });
    expect(answer.hits[0]?.text).toContain("export function removeUser");
    // A path filter, relative or whole: only what is under it.
    for (const path of ["src/math.ts", join(root, "src/math.ts")]) {
      const narrowed = await search(i, "erase the values", path);
      expect(narrowed.hits.length).toBeGreaterThan(0);
      for (const hit of narrowed.hits) expect(hit.path).toBe("src/math.ts");
    }
  });

  test("a relevance floor: a small project's unrelated chunks are no answer, and the answer says some were left out", async () => {
    files({ "src/users.ts": USERS, "src/math.ts": MATH, "src/http.ts": HTTP, ".gitignore": "logs/\n", "docs/guide.md": "# Guide\n\nHow to run the tools.\n" });
    const i = open();
    await i.settled();
    const answer = await i.search("erase a customer", { limit: 8 }, AbortSignal.timeout(60_000));
    expect(answer.hits.map((h) => h.path)).toEqual(["src/users.ts"]);
    expect(answer.notes).toEqual(["6 weaker matches were left out, far below the best one; other words, a narrower path or grep find more"]);
    // Nothing under the floor: nothing said.
    const narrow = await i.search("erase a customer", { limit: 1 }, AbortSignal.timeout(60_000));
    expect(narrow.notes).toEqual([]);
  });

  test("an edited file's new function is found after the refresh; a deleted file is taken out", async () => {
    files({ "src/math.ts": MATH, "src/http.ts": HTTP });
    const i = open();
    await i.settled();
    writeFileSync(join(root, "src/http.ts"), `${HTTP}\nexport function checkPassword(user: string, secret: string): boolean {\n  return hashOf(secret) === stored(user);\n}\n`);
    rmSync(join(root, "src/math.ts"));
    const answer = await search(i, "authenticate a login");
    expect(answer.hits[0]).toMatchObject({ path: "src/http.ts", startLine: 6, endLine: 8 });
    expect([...codeFiles(db, root).keys()]).toEqual(["src/http.ts"]);
  });

  test("gitignored files, .env and other protected files are never indexed nor cited", async () => {
    files({ ".gitignore": "private/\n", "private/notes.ts": "export function eraseAll() {}\n", ".env": "ERASE_TOKEN=erase\n", "id_rsa": "erase key\n", "src/users.ts": USERS });
    const i = open();
    await i.settled();
    expect([...codeFiles(db, root).keys()].sort()).toEqual([".gitignore", "src/users.ts"]);
    const answer = await search(i, "erase");
    for (const hit of [...answer.hits, ...answer.grep]) expect(hit.path).not.toMatch(/private|\.env|id_rsa/);
    expect(model.embeddingRequests.flatMap((r) => r.input).join("\n")).not.toContain("ERASE_TOKEN");
  });

  test("credential files and chunks that hold a credential never go to the embedding endpoint nor into an answer", async () => {
    const keyed = `export function connectUsers(): Client {\n  return connect({ apiKey: "AbCdEf0123456789xyz" });\n}\n\n${USERS}`;
    files({
      ".npmrc": "//registry.npmjs.org/:_authToken=NPMRCSECRET0123\n",
      ".pypirc": "[pypi]\npassword = PYPIRCSECRET0123\n",
      ".netrc": "machine example.com login me password NETRCSECRET\n",
      ".git-credentials": "https://me:GITCREDSECRET@example.com\n",
      "config/credentials.json": '{"key": "CREDSJSONSECRET"}\n',
      "deploy/prod-service-account.json": '{"type": "service_account", "private_key": "SAJSONSECRET"}\n',
      "config/gcp.json": '{"type": "service_account", "project_id": "p", "note": "GCPJSONSECRET"}\n',
      "src/keys.ts": "/** Erases a customer. */\nexport const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';\n",
      "src/client.ts": keyed,
      "deploy/app.env.example": "DB_PASSWORD=hunter2hunter2\nPORT=8080\n",
    });
    const i = open();
    await i.settled();
    const sent = model.embeddingRequests.flatMap((r) => r.input).join("\n");
    for (const secret of ["NPMRCSECRET", "PYPIRCSECRET", "NETRCSECRET", "GITCREDSECRET", "CREDSJSONSECRET", "SAJSONSECRET", "GCPJSONSECRET", "ghp_", "AbCdEf0123456789xyz", "hunter2"]) expect([secret, sent.includes(secret)]).toEqual([secret, false]);
    // The file's other chunks are indexed all the same; a file of nothing else is left out, saying why.
    expect(sent).toContain("export function removeUser");
    const rows = codeFiles(db, root);
    expect(rows.get("src/keys.ts")?.skipped).toBe("holds a secret");
    expect([...rows.keys()].filter((path) => /npmrc|pypirc|netrc|credentials|service-account/.test(path))).toEqual([]);
    const answer = await search(i, "erase a customer token password");
    for (const hit of [...answer.hits, ...answer.grep]) expect(hit.text).not.toMatch(/SECRET|ghp_|AbCdEf|hunter2/);
  });

  test("a search before the index is ready: no grep line that holds a credential", async () => {
    files({ "src/a.ts": `/** erase */\nexport const password = 'erase0123456789';\n\n${USERS}\nexport function eraseAll(): void {}\n` });
    model.setEmbeddings({ fail: { status: 500 } });
    const i = open({ backoffMs: 60_000 });
    await i.settled();
    const answer = await search(i, "erase");
    expect(answer.grep.map((h) => h.text)).toEqual(["/** erase */", "export function eraseAll(): void {}"]);
  });

  test("what leaves the device is what the README says: each chunk's text under its path, and each query, to the embedding connection's /embeddings", async () => {
    files({ "src/users.ts": USERS });
    const i = open();
    await i.settled();
    await search(i, "erase an account");
    const sent = model.embeddingRequests.flatMap((r) => r.input);
    expect(sent).toContain("erase an account");
    expect(sent.find((text) => text.includes("removeUser"))?.startsWith("src/users.ts\n")).toBe(true);
    const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
    const paragraph = readme.slice(readme.indexOf("**Your project, searched by meaning**"), readme.indexOf("lembas index status"));
    const said = paragraph.slice(paragraph.indexOf("What leaves your device")).replace(/\s+/g, " ");
    for (const part of ["the text of each chunk", "path", "every `code_search` query", "`/embeddings`", "`embedding:`", "`base_url`"]) expect([part, said.includes(part)]).toEqual([part, true]);
  });

  test("binary, minified and generated files are left out, each with why", async () => {
    const minified = `var a=${"1,".repeat(3000)}1;function f(){return a}`;
    files({
      "src/users.ts": USERS,
      "assets/blob": new Uint8Array([137, 80, 78, 71, 0, 0, 1, 2, 3]),
      "logo.png": "not read: left out by its name\n",
      "assets/app.js": minified,
      "src/gen.ts": "// Code generated by protoc-gen-ts. DO NOT EDIT.\nexport const removeUser = 1;\n",
      "package-lock.json": '{"lockfileVersion": 3}\n',
      "lib/x.min.js": "function removeUser(){}\n",
    });
    const i = open();
    await i.settled();
    const rows = codeFiles(db, root);
    expect(Object.fromEntries([...rows.values()].map((r) => [r.path, r.skipped]))).toEqual({ "src/users.ts": null, "assets/blob": "binary", "assets/app.js": "minified", "src/gen.ts": "generated" });
    expect(rows.get("src/users.ts")?.chunks).toBeGreaterThan(0);
    const sent = model.embeddingRequests.flatMap((r) => r.input).join("\n");
    expect(sent).not.toContain("DO NOT EDIT");
    expect(sent).not.toContain("var a=");
  });

  test("a file that changes while it is embedded: the newer content wins", async () => {
    files({ "src/users.ts": USERS });
    let release: () => void = () => {};
    model.setEmbeddings({ hold: new Promise<void>((resolve) => (release = resolve)) });
    const i = open();
    const done = i.settled();
    await until(() => model.embeddingRequests.length > 0);
    writeFileSync(join(root, "src/users.ts"), `${USERS}\nexport function checkPassword(secret: string): boolean {\n  return secret.length > 0;\n}\n`);
    release();
    await done;
    // The pass itself wrote the new content, not the one it had read (no later pass made up for it).
    expect(codeFiles(db, root).get("src/users.ts")?.size).toBe(Bun.file(join(root, "src/users.ts")).size);
    expect(model.embeddingRequests.at(-1)?.input.join("\n")).toContain("checkPassword");
    const answer = await search(i, "credentials");
    expect(answer.hits[0]?.text).toContain("checkPassword");
  });

  test("an embedding endpoint that is down: the search answers from grep and says so once; the pass goes on when it is back", async () => {
    files({ "src/users.ts": USERS, "src/math.ts": MATH });
    model.setEmbeddings({ fail: { status: 500 } });
    const i = open({ backoffMs: 1 });
    await i.settled();
    // The search answers all the same, from the words: the index's text and a grep of the files not indexed.
    const first = await search(i, "removeUser customer");
    expect(first.notes.join("\n")).toContain("indexing is paused: the embedding server at");
    expect(first.notes.join("\n")).toContain("answered 500");
    expect(first.grep.map((h) => `${h.path}:${h.startLine}`)).toEqual(["src/users.ts:3", "src/users.ts:4"]);
    const second = await search(i, "removeUser customer");
    expect(second.notes.join("\n")).not.toContain("answered 500");
    expect(second.notes.join("\n")).toContain("indexing is paused (the embedding server failed, said before)");
    // The failing pass is tried again (a growing wait), and said once.
    const before = model.embeddingRequests.length;
    await until(() => model.embeddingRequests.length > before + 1);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("the code index is paused: the embedding server at");
    model.setEmbeddings({});
    await until(() => i.progress()?.ready === true);
    const answer = await search(i, "erase an account");
    expect(answer.hits[0]?.path).toBe("src/users.ts");
    expect(answer.notes.filter((note) => !note.includes("weaker"))).toEqual([]);
  });

  test("rate limited (429): the batch is retried after Retry-After and the pass completes", async () => {
    files({ "src/users.ts": USERS });
    model.setEmbeddings({ fail: { status: 429, retryAfter: 0 }, times: 2 });
    const i = open();
    await i.settled();
    expect(i.progress()).toMatchObject({ ready: true, problem: null, done: 1, total: 1 });
    expect(said).toEqual([]);
  });

  test("the progress a search gives while the index is built counts the same files in its files and its chunks", async () => {
    const tree: Record<string, string> = {};
    // One chunk a file: files done and chunks held go up together.
    for (let n = 0; n < 400; n++) tree[`src/m${Math.floor(n / 50)}/f${n}.ts`] = `export function f${n}(x: number): number {\n  return x + ${n};\n}\n`;
    files(tree);
    let release: () => void = () => {};
    model.setEmbeddings({ hold: new Promise<void>((resolve) => (release = resolve)), holdWhen: (input) => input.length > 1 });
    const i = open({ batchSize: 16 });
    void i.start();
    await until(() => model.embeddingRequests.length > 0);
    const searched = search(i, "f399 number");
    // The pass goes on while the search greps the files not yet indexed.
    await until(() => model.embeddingRequests.some((r) => r.input.length === 1));
    release();
    const note = (await searched).notes[0] ?? "";
    const [, files_, chunks] = /^the index is being built: ([\d,]+) of 400 files, ([\d,]+) chunks so far; /.exec(note) ?? [];
    expect(note).toMatch(/^the index is being built: /);
    expect(chunks).toBe(files_);
    model.setEmbeddings({});
    await i.settled();
  });

  test("a large tree: batches are bounded, the search before the end says how far it is and greps the rest", async () => {
    const tree: Record<string, string> = {};
    for (let n = 0; n < 400; n++) tree[`src/m${Math.floor(n / 50)}/f${n}.ts`] = `export function f${n}(x: number): number {\n  return x + ${n};\n}\n`;
    tree["src/zz/users.ts"] = USERS;
    files(tree);
    let release: () => void = () => {};
    // The index's batches are held; a query's one text is answered.
    model.setEmbeddings({ hold: new Promise<void>((resolve) => (release = resolve)), holdWhen: (input) => input.length > 1 });
    const i = open({ batchSize: 16 });
    void i.start();
    await until(() => model.embeddingRequests.length > 0);
    // The search does not wait for the pass: it answers from what is indexed (nothing yet) and a grep.
    const early = await Promise.race([search(i, "removeUser customer"), Bun.sleep(30_000).then(() => null)]);
    expect(early).not.toBeNull();
    expect(early?.notes[0]).toMatch(/^the index is being built: \d+ of 401 files, \d+ chunks so far; /);
    expect(early?.grep.some((h) => h.path === "src/zz/users.ts")).toBe(true);
    release();
    model.setEmbeddings({});
    await i.settled();
    expect(i.progress()).toMatchObject({ ready: true, done: 401, total: 401 });
    // Never more than a batch and one file's chunks held at once, each request at most a batch.
    expect(i.progress()?.peakHeld).toBeLessThanOrEqual(16 + 1);
    for (const r of model.embeddingRequests) expect(r.input.length).toBeLessThanOrEqual(16);
    const answer = await search(i, "erase an account", "src/zz");
    expect(answer.hits[0]).toMatchObject({ path: "src/zz/users.ts", startLine: 3, endLine: 6 });
    for (const hit of answer.hits) expect(hit.path).toStartWith("src/zz/");
  });
});
