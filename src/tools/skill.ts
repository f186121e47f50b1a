import { z } from "zod";
import { readSkillPart, type Skill, skillFiles } from "../project/skills.ts";
import { fail, ok } from "./result.ts";
import description from "./skill.txt" with { type: "text" };
import { defineTool } from "./tool.ts";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    name: z.string().min(1),
    file: z.string().min(1).optional().describe("One of its files; none: the skill itself"),
  });

/**
 * skill: a skill's instructions and the paths of its other files, or one of those files. It reads
 * only the skills' own folders, chosen by name, never a path of the model's choosing outside
 * them: so it asks nothing, in any mode, the person's skills (in the config dir) included.
 */
export const skillTool = defineTool({
  name: "skill",
  description,
  schema,
  permission: "read",
  needs: ["skills"],
  kind: "read",
  title: (input) => (input.file ? `Read ${input.file} of the skill ${input.name}` : `Load the skill ${input.name}`),
  // The skill's folder is not the model's to choose: nothing here for the permission check to judge.
  paths: () => [],
  more: "read the rest with the read tool's offset, at the path under the skill's folder",
  async execute(input, ctx) {
    const skills = ctx.skills.all();
    const skill = skills.find((s) => s.name === input.name);
    if (!skill) {
      const names = skills.map((s) => s.name);
      return fail(names.length === 0 ? `There is no skill named "${input.name}": there are no skills.` : `There is no skill named "${input.name}". The skills are: ${names.join(", ")}.`);
    }
    if (input.file !== undefined) {
      const part = readSkillPart(skill, input.file);
      if ("refused" in part) return fail(`${part.refused}.`);
      return ok(part.text, { meta: { skill: skill.name, file: input.file } });
    }
    return ok(loaded(skill), { meta: { skill: skill.name } });
  },
});

/** A loaded skill as the model reads it: its instructions, then its folder and other files. */
function loaded(skill: Skill): string {
  const { files, more } = skillFiles(skill);
  const lines = [`<skill name="${skill.name}" path="${skill.path}">`, skill.body, "</skill>", ""];
  if (files.length === 0) {
    lines.push(`The skill's folder, ${skill.dir}, holds no other file.`);
    return lines.join("\n");
  }
  lines.push(`The skill's folder is ${skill.dir}; its other files (read one with this tool's file, run a script at its path under the folder):`);
  lines.push(...files.map((f) => `- ${f}`));
  if (more) lines.push(`(the first ${files.length} are listed: the folder holds more; list ${skill.dir} to see them)`);
  return lines.join("\n");
}
