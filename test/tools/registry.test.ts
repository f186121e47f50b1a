import { describe, expect, test } from "bun:test";
import { ALL_TOOLS, toolByName } from "../../src/tools/index.ts";
import { inputSchema } from "../../src/tools/tool.ts";

describe("the tool registry", () => {
  test("holds the tools the model is promised, by name", () => {
    expect(ALL_TOOLS.map((t) => t.name)).toEqual(["read", "write", "edit", "multi_edit", "bash", "job", "grep", "glob", "code_search", "list", "lsp", "fetch", "web_search", "library", "task", "skill", "todo", "ask_user", "plan_submit", "settings"]);
    expect(toolByName("edit")?.name).toBe("edit");
    expect(toolByName("nope")).toBeUndefined();
  });

  test("permission classes and kinds", () => {
    const classes = Object.fromEntries(ALL_TOOLS.map((t) => [t.name, `${t.permission}/${t.kind}`]));
    expect(classes).toEqual({
      read: "read/read",
      write: "write/edit",
      edit: "write/edit",
      multi_edit: "write/edit",
      bash: "exec/execute",
      code_search: "read/search",
      job: "read/execute",
      grep: "read/search",
      glob: "read/search",
      list: "read/read",
      lsp: "read/search",
      fetch: "read/fetch",
      web_search: "read/fetch",
      library: "read/search",
      task: "read/think",
      skill: "read/read",
      todo: "none/think",
      ask_user: "none/think",
      plan_submit: "none/switch_mode",
      settings: "none/other",
    });
  });

  test("every tool has a description of a sentence or more and an object schema; a field is described, where its name and type do not say it all, in a few words", () => {
    for (const tool of ALL_TOOLS) {
      expect(tool.description.length).toBeGreaterThan(100);
      const schema = inputSchema(tool) as { type: string; properties: Record<string, { description?: string }> };
      expect(schema.type).toBe("object");
      for (const [field, property] of Object.entries(schema.properties)) {
        expect(`${tool.name}.${field}: ${(property.description ?? "").length <= 60 ? "a few words" : property.description}`).toBe(`${tool.name}.${field}: a few words`);
      }
    }
  });

  test("a brief (what a small window is sent) is a line or two", () => {
    for (const tool of ALL_TOOLS) {
      if (tool.brief === undefined) continue;
      expect(`${tool.name}: ${tool.brief.length <= 200 ? "short" : tool.brief.length}`).toBe(`${tool.name}: short`);
    }
  });
});
