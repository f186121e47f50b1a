import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type LibraryBox, libraryBox } from "../library/support.ts";

let box: LibraryBox;
beforeEach(async () => {
  box = await libraryBox();
  mkdirSync(join(box.project, "src"));
  writeFileSync(join(box.project, "src/users.ts"), 'import { db } from "./db";\n\n/** Takes a customer out of the table. */\nexport function removeUser(id: string): void {\n  db.users.splice(db.users.indexOf(id), 1);\n}\n');
  writeFileSync(join(box.project, "src/math.ts"), "export function sum(values: number[]): number {\n  return values.reduce((a, b) => a + b, 0);\n}\n");
  writeFileSync(join(box.project, ".env"), "TOKEN=erase-me\n");
});
afterEach(() => box.close());

type JsonEvent = { type: string; name?: string; output?: string; isError?: boolean };

function toolNames(body: { tools?: unknown }): string[] {
  return (Array.isArray(body.tools) ? body.tools : []).map((t: { function: { name: string } }) => t.function.name);
}

async function offered(): Promise<boolean> {
  box.model.push(step({ text: "fine" }));
  const result = await box.lembas(["run", "--yes", "hello"]);
  expect(result.code).toBe(0);
  const steps = box.model.requests.filter((r) => isStep(r.body));
  return toolNames(steps.at(-1)?.body ?? {}).includes("code_search");
}

describe("code_search in a turn", () => {
  test("offered with an embedding model, it finds code by purpose and cites path:lines; .env is never sent", async () => {
    box.model.push(step({ toolCalls: [{ name: "code_search", arguments: { query: "erase an account", limit: 2 } }] }), step({ text: "src/users.ts:3-6 does it." }));
    const result = await box.lembas(["run", "--yes", "--format", "json", "where do we erase accounts?"]);
    expect(result.code).toBe(0);
    const steps = box.model.requests.filter((r) => isStep(r.body));
    expect(toolNames(steps[0]?.body ?? {})).toContain("code_search");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as JsonEvent);
    const end = events.find((e) => e.type === "tool_end" && e.name === "code_search");
    expect(end?.isError).toBeFalsy();
    expect(end?.output).toContain("[1] src/users.ts:3-6 (score ");
    expect(end?.output).toContain("export function removeUser");
    expect(box.model.embeddingRequests.flatMap((r) => r.input).join("\n")).not.toContain("erase-me");
  });

  test("an embedding server that fails: the turn goes on, the session is told once, and code_search answers from the words", async () => {
    box.model.setEmbeddings({ fail: { status: 500 } });
    box.model.push(
      step({ toolCalls: [{ name: "code_search", arguments: { query: "removeUser" } }] }),
      step({ toolCalls: [{ name: "code_search", arguments: { query: "removeUser" } }] }),
      step({ text: "src/users.ts:4." }),
    );
    const result = await box.lembas(["run", "--yes", "--format", "json", "where is removeUser?"]);
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as JsonEvent & { message?: string });
    const notices = events.filter((e) => e.type === "notice" && e.message?.includes("the code index is paused"));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.message).toContain("answered 500");
    const ends = events.filter((e) => e.type === "tool_end" && e.name === "code_search");
    expect(ends).toHaveLength(2);
    for (const end of ends) {
      expect(end.isError).toBeFalsy();
      expect(end.output).toContain("src/users.ts:4-4: export function removeUser");
    }
    expect(ends[1]?.output).toContain("said before");
  });

  test("lembas index rebuild, status and off; doctor's line; off (or index: false) takes the tool away", async () => {
    const rebuilt = await box.lembas(["index", "rebuild"]);
    expect(rebuilt.stderr).toBe("");
    expect(rebuilt.stdout).toContain("indexed 2 files (3 chunks) of ");
    const status = await box.lembas(["index", "status"]);
    expect(status.stdout).toContain("indexed: 2 files, 3 chunks (embedding: test/embed-a)");
    expect(status.stdout).toContain("up to date");
    writeFileSync(join(box.project, "src/more.ts"), "export const two = 2;\n");
    expect((await box.lembas(["index", "status"])).stdout).toContain("waiting: 1 file new or changed of 3");
    const doctor = await box.lembas(["doctor"]);
    expect(doctor.stdout).toMatch(/ok {3}code index: .*project, 2 files, 3 chunks \(embedding: test\/embed-a;/);
    expect(await offered()).toBe(true);

    const off = await box.lembas(["index", "off"]);
    expect(off.code).toBe(0);
    expect(JSON.parse(readFileSync(join(box.project, ".agent/settings.local.json"), "utf8"))).toEqual({ index: false });
    expect((await box.lembas(["index", "status"])).stdout).toContain(`index: off ("index": false in .agent/settings.local.json, yours)`);
    expect(await offered()).toBe(false);
  });

  test("lembas index off is the person's own (their settings of the project, kept out of git); --project the team's, --everywhere config.yaml; lembas index on undoes each", async () => {
    expect(Bun.spawnSync(["git", "init", "-q"], { cwd: box.project }).exitCode).toBe(0);
    writeFileSync(join(box.project, ".gitignore"), "node_modules/\n");
    const personal = join(box.project, ".agent/settings.local.json");
    const shared = join(box.project, ".agent/settings.json");
    mkdirSync(join(box.project, ".agent"));
    writeFileSync(shared, '{"hooks": {}}\n');

    const off = await box.lembas(["index", "off"]);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('"index": false in .agent/settings.local.json, yours, not committed');
    expect(JSON.parse(readFileSync(personal, "utf8"))).toEqual({ index: false });
    expect(JSON.parse(readFileSync(shared, "utf8"))).toEqual({ hooks: {} });
    // git leaves the person's file out of the project's commits.
    expect(Bun.spawnSync(["git", "check-ignore", "-q", ".agent/settings.local.json"], { cwd: box.project }).exitCode).toBe(0);
    expect((await box.lembas(["index", "status"])).stdout).toContain(`index: off ("index": false in .agent/settings.local.json, yours)`);
    expect(await offered()).toBe(false);
    const refused = await box.lembas(["index", "rebuild"]);
    expect(refused.stderr).toContain("(lembas index on)");

    const on = await box.lembas(["index", "on"]);
    expect([on.code, on.stderr]).toEqual([0, ""]);
    expect(on.stdout).toContain("is indexed again");
    expect(JSON.parse(readFileSync(personal, "utf8"))).toEqual({});
    expect(await offered()).toBe(true);

    // The team's: asked for by name, kept beside the file's other keys.
    expect((await box.lembas(["index", "off", "--project"])).code).toBe(0);
    expect(JSON.parse(readFileSync(shared, "utf8"))).toEqual({ hooks: {}, index: false });
    const personalOn = await box.lembas(["index", "on"]);
    expect(personalOn.code).toBe(1);
    expect(personalOn.stderr).toContain('still not indexed: "index": false in .agent/settings.json, the project\'s (lembas index on --project)');
    expect((await box.lembas(["index", "on", "--project"])).code).toBe(0);
    expect(JSON.parse(readFileSync(shared, "utf8"))).toEqual({ hooks: {} });

    expect((await box.lembas(["index", "off", "--everywhere"])).code).toBe(0);
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toMatch(/^index: false$/m);
    expect(await offered()).toBe(false);
    expect((await box.lembas(["index", "on", "--everywhere"])).code).toBe(0);
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).not.toContain("index:");
    expect(await offered()).toBe(true);
  });

  test("index: false in config.yaml: not offered, and rebuild refuses with why", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "index: false\n");
    expect(await offered()).toBe(false);
    const rebuilt = await box.lembas(["index", "rebuild"]);
    expect(rebuilt.code).toBe(1);
    expect(rebuilt.stderr).toContain("this project is not indexed: index: false in config.yaml");
  });
});
