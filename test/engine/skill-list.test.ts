import { describe, expect, test } from "bun:test";
import { SKILL_DESCRIPTION_MAX, SKILLS_BUDGET, skillList } from "../../src/engine/skill-list.ts";
import type { Skill } from "../../src/project/skills.ts";

const skill = (name: string, description: string, forModel = true): Skill => ({ name, description, body: "", path: `/s/${name}/SKILL.md`, dir: `/s/${name}`, forModel, forPerson: true });
const lines = (text: string | null) => (text ?? "").split("\n").filter((l) => l.startsWith("- "));

describe("the skills' list in the system prompt", () => {
  test("none, or none the model may load: no section at all", () => {
    expect(skillList([])).toBeNull();
    expect(skillList([skill("deploy", "Ship it", false)])).toBeNull();
  });

  test("a description is one line, cut to its most", () => {
    const list = skillList([skill("deploy", `Ship it\n  to staging ${"y".repeat(400)}`)]);
    const [line] = lines(list);
    expect(line).toStartWith("- deploy: Ship it to staging yyy");
    expect(line?.length).toBe("- deploy: ".length + SKILL_DESCRIPTION_MAX);
    expect(line).toEndWith("…");
  });

  test("many skills: every description is cut alike to fit the budget, every name stays", () => {
    const many = Array.from({ length: 40 }, (_, i) => skill(`skill-${i}`, `Does thing ${i} ${"z".repeat(300)}`));
    const list = skillList(many) ?? "";
    expect(list.length).toBeLessThanOrEqual(SKILLS_BUDGET);
    expect(lines(list)).toHaveLength(40);
    for (const [i, line] of lines(list).entries()) expect(line).toStartWith(`- skill-${i}: Does thing ${i} z`);
  });

  test("too many for descriptions: names alone, and what does not fit is counted", () => {
    const many = Array.from({ length: 400 }, (_, i) => skill(`a-rather-long-skill-name-${i}`, "Does a thing"));
    const list = skillList(many) ?? "";
    expect(list.length).toBeLessThanOrEqual(SKILLS_BUDGET);
    const listed = lines(list);
    expect(listed[0]).toBe("- a-rather-long-skill-name-0");
    expect(listed.at(-1)).toMatch(/^- and \d+ more: the skill tool names them all$/);
    const more = Number(/and (\d+) more/.exec(listed.at(-1) ?? "")?.[1]);
    expect(listed.length - 1 + more).toBe(400);
  });
});
