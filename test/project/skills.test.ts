import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadCommands } from "../../src/project/commands.ts";
import { findSkills } from "../../src/project/skills.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place(): { root: string; configDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "lembas-skills-"));
  made.push(dir);
  return { root: join(dir, "project"), configDir: join(dir, "config") };
}

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("finding skills", () => {
  test("of one name, .agent's wins over .claude's, which wins over the person's", () => {
    const p = place();
    put(join(p.configDir, "skills", "deploy", "SKILL.md"), "---\ndescription: the person's\n---\nA");
    put(join(p.root, ".claude", "skills", "deploy", "SKILL.md"), "---\ndescription: claude's\n---\nB");
    expect(findSkills(p).skills.map((s) => s.description)).toEqual(["claude's"]);
    put(join(p.root, ".agent", "skills", "deploy", "SKILL.md"), "---\ndescription: lembas's\n---\nC");
    expect(findSkills(p).skills.map((s) => s.description)).toEqual(["lembas's"]);
  });

  test("Claude Code's frontmatter is read: its name, disable-model-invocation and user-invocable; other keys are tolerated", () => {
    const p = place();
    put(join(p.root, ".claude", "skills", "folder", "SKILL.md"), "---\nname: pdf-tools\ndescription: Work with PDFs\nallowed-tools: Read, Bash(python:*)\nlicense: MIT\nmetadata:\n  version: 2\n---\nUse pdftotext.");
    put(join(p.root, ".claude", "skills", "by-hand", "SKILL.md"), "---\ndescription: Person only\ndisable-model-invocation: true\n---\nX");
    put(join(p.root, ".claude", "skills", "model-only", "SKILL.md"), "---\ndescription: Model only\nuser-invocable: false\n---\nY");
    const skills = findSkills(p).skills;
    expect(skills.map((s) => [s.name, s.forModel, s.forPerson])).toEqual([
      ["by-hand", false, true],
      ["model-only", true, false],
      ["pdf-tools", true, true],
    ]);
    expect(skills.find((s) => s.name === "pdf-tools")?.body).toBe("Use pdftotext.");
    const commands = loadCommands(p).all.filter((c) => c.kind === "skill").map((c) => c.name);
    expect(commands).toEqual(["by-hand", "pdf-tools"]);
  });

  test("a skill named like a terminal screen is no /command, and the model may still load it", () => {
    const p = place();
    put(join(p.root, ".agent", "skills", "review", "SKILL.md"), "---\ndescription: Review the team's way\n---\nZ");
    expect(findSkills(p).skills.map((s) => s.name)).toEqual(["review"]);
    expect(loadCommands(p).all.filter((c) => c.kind === "skill")).toEqual([]);
  });
});
