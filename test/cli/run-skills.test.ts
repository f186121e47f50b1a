import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type ChatRequest, contentText, personText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runInProject } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const run = (args: string[]) => runInProject(box, args);
const steps = () => model.requests.filter((r) => isStep(r.body)).map((r) => r.body);
const systemOf = (body: ChatRequest | undefined) => contentText(body?.messages?.[0]?.content);
const toolNames = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
/** What the tool calls of a request's history answered, in order. */
const toolResults = (body: ChatRequest | undefined) => (body?.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));

/** Writes a file, its folders made. */
function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A skill's SKILL.md in Claude Code's format, with a key lembas does not use. */
const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\nallowed-tools: Bash(git:*)\n---\n${body}\n`;

describe("skills the model loads", () => {
  test("the project's (.agent and .claude) and the person's skills are listed in the first request's system prompt, with the skill tool", async () => {
    put(join(box.project, ".agent", "skills", "deploy", "SKILL.md"), skillMd("deploy", "Ship the service to staging", "Run scripts/ship.sh."));
    put(join(box.project, ".claude", "skills", "review-pr", "SKILL.md"), skillMd("review-pr", "Review a pull request the team's way", "Read the diff."));
    put(join(box.configDir, "skills", "notes", "SKILL.md"), skillMd("notes", "Keep the person's notes", "Append to notes.md."));
    put(join(box.project, ".agent", "skills", "manual-only", "SKILL.md"), "---\ndescription: Only the person runs this\ndisable-model-invocation: true\n---\nDo it by hand.\n");
    model.push(step({ text: "ok" }));
    expect((await run(["hello"])).code).toBe(0);
    const [first] = steps();
    const system = systemOf(first);
    expect(system).toContain("# Skills\n");
    expect(system).toContain("- deploy: Ship the service to staging\n- notes: Keep the person's notes\n- review-pr: Review a pull request the team's way");
    expect(system).not.toContain("manual-only");
    // The date stays last: the skills come before it.
    expect(system).toMatch(/review-pr: Review a pull request the team's way\n\nThe session started on \d{4}-\d\d-\d\d\.$/);
    expect(toolNames(first)).toContain("skill");
  });

  test("a model whose window is 16k tokens is listed no skill and offered no skill tool; the person's /command still runs", async () => {
    model.setModels([{ id: "test-model", context_length: 16_384 }]);
    put(join(box.project, ".agent", "skills", "deploy", "SKILL.md"), skillMd("deploy", "Ship the service to staging", "Run scripts/ship.sh."));
    model.push(step({ text: "ok" }), step({ text: "shipped" }));
    expect((await run(["hello"])).code).toBe(0);
    const [first] = steps();
    expect(systemOf(first)).not.toContain("# Skills");
    expect(systemOf(first)).not.toContain("deploy");
    expect(toolNames(first)).not.toContain("skill");
    expect((await run(["/deploy now"])).code).toBe(0);
    expect(personText(steps().at(-1)?.messages?.at(-1)?.content)).toContain("Run scripts/ship.sh.");
  });

  test("a model that takes no tools is listed no skill either: it could not load one", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    supports_tools: false\n`);
    put(join(box.project, ".agent", "skills", "deploy", "SKILL.md"), skillMd("deploy", "Ship the service to staging", "Run scripts/ship.sh."));
    model.push({ text: "ok" });
    expect((await run(["hello"])).code).toBe(0);
    const system = contentText(model.requests.find((r) => JSON.stringify(r.body.messages?.[0] ?? "").includes("# Environment"))?.body.messages?.[0]?.content);
    expect(system).toContain("used without tools");
    expect(system).not.toContain("# Skills");
  });

  test("the model loads a skill: the next request carries its body and its files' paths; a file of it is read through the tool, the person's too, without asking", async () => {
    const dir = join(box.configDir, "skills", "deploy");
    put(join(dir, "SKILL.md"), skillMd("deploy", "Ship the service to staging", "DEPLOY-STEPS: run scripts/ship.sh, then check reference.md."));
    put(join(dir, "scripts", "ship.sh"), "#!/bin/sh\necho shipped\n");
    put(join(dir, "reference.md"), "REFERENCE-TEXT: staging is at staging.example\n");
    put(join(dir, ".env"), "TOKEN=secret\n");
    model.push(
      step({ toolCalls: [{ id: "s1", name: "skill", arguments: { name: "deploy" } }] }),
      step({ toolCalls: [{ id: "s2", name: "skill", arguments: { name: "deploy", file: "reference.md" } }] }),
      step({ toolCalls: [{ id: "s3", name: "skill", arguments: { name: "deploy", file: ".env" } }, { id: "s4", name: "skill", arguments: { name: "deploy", file: "../../config.yaml" } }] }),
      step({ text: "deployed" }),
    );
    // Plan mode, which asks before nothing that reads: the person's config dir is outside the project and protected, yet nothing is asked.
    const result = await run(["--mode", "plan", "deploy it"]);
    expect(result.code).toBe(0);
    const [, second, third, fourth] = steps();
    const loaded = toolResults(second)[0] ?? "";
    expect(loaded).toContain(`<skill name="deploy" path="${join(dir, "SKILL.md")}">`);
    expect(loaded).toContain("DEPLOY-STEPS: run scripts/ship.sh, then check reference.md.");
    expect(loaded).toContain(`The skill's folder is ${dir}`);
    expect(loaded).toContain("- reference.md\n- scripts/ship.sh");
    expect(loaded).not.toContain(".env");
    expect(toolResults(third)[1]).toBe("REFERENCE-TEXT: staging is at staging.example\n");
    const [secret, outside] = toolResults(fourth).slice(2);
    expect(secret).toContain(".env is hidden or a secret");
    expect(outside).toContain("../../config.yaml is not a file of the skill deploy");
    expect(result.stderr).not.toContain("TOKEN=secret");
  });

  test("an unknown skill is answered with the names there are", async () => {
    put(join(box.project, ".agent", "skills", "deploy", "SKILL.md"), skillMd("deploy", "Ship it", "Ship."));
    put(join(box.project, ".claude", "skills", "lint", "SKILL.md"), skillMd("lint", "Lint it", "Lint."));
    model.push(step({ toolCalls: [{ id: "s1", name: "skill", arguments: { name: "deplyo" } }] }), step({ text: "ok" }));
    expect((await run(["go"])).code).toBe(0);
    expect(toolResults(steps()[1])[0]).toBe('There is no skill named "deplyo". The skills are: deploy, lint.');
  });

  test("a project's SKILL.md that leads outside the project is left out", async () => {
    put(join(box.dir, "elsewhere", "SKILL.md"), skillMd("stolen", "Not the project's", "SECRET-BODY"));
    mkdirSync(join(box.project, ".agent", "skills", "stolen"), { recursive: true });
    symlinkSync(join(box.dir, "elsewhere", "SKILL.md"), join(box.project, ".agent", "skills", "stolen", "SKILL.md"));
    model.push(step({ toolCalls: [{ id: "s1", name: "skill", arguments: { name: "stolen" } }] }), step({ text: "ok" }));
    expect((await run(["go"])).code).toBe(0);
    const [first, second] = steps();
    expect(systemOf(first)).not.toContain("stolen");
    expect(toolNames(first)).not.toContain("skill");
    expect(JSON.stringify(second)).not.toContain("SECRET-BODY");
  });

  test("a skill folder without SKILL.md, and a SKILL.md over 256 KiB, are left out with a notice; the others are listed", async () => {
    mkdirSync(join(box.project, ".agent", "skills", "empty", "scripts"), { recursive: true });
    put(join(box.project, ".claude", "skills", "huge", "SKILL.md"), skillMd("huge", "Too big to read", "x".repeat(1024 * 1024)));
    put(join(box.project, ".agent", "skills", "deploy", "SKILL.md"), skillMd("deploy", "Ship it", "Ship."));
    model.push(step({ text: "ok" }));
    const result = await run(["hello"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`lembas: ${join(box.project, ".agent", "skills", "empty")} is skipped: a skill folder needs a SKILL.md`);
    expect(result.stderr).toMatch(new RegExp(`lembas: ${join(box.project, ".claude", "skills", "huge", "SKILL.md")} is skipped: it is \\d+ bytes, more than the 256 KiB a skill may have`));
    const system = systemOf(steps()[0]);
    expect(system).toContain("- deploy: Ship it");
    expect(system).not.toContain("huge");
    expect(system).not.toContain("empty");
  });

  test("without skills, no skill tool and no skills' section", async () => {
    model.push(step({ text: "ok" }));
    expect((await run(["hello"])).code).toBe(0);
    const [first] = steps();
    expect(systemOf(first)).not.toContain("# Skills");
    expect(toolNames(first)).not.toContain("skill");
  });
});
