import { describe, expect, test } from "bun:test";
import { parseRule, type PermissionRule } from "../../src/config/permission-rules.ts";
import { type ActiveRule, type RuleCall, matchingRule } from "../../src/engine/rule-match.ts";

/** Rules read from their text and matched against calls, deny before ask before allow. */

const root = "/work/project";
const home = "/home/me";
const rule = (text: string): PermissionRule => {
  const parsed = parseRule(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.rule;
};
const active = (action: ActiveRule["action"], text: string): ActiveRule => ({ action, rule: rule(text), source: { kind: "config", label: "config.yaml" } });
const call = (c: Partial<RuleCall> & Pick<RuleCall, "toolName" | "permission">): RuleCall => ({ paths: [], hosts: [], root, home, ...c });
const bash = (command: string) => call({ toolName: "bash", permission: "exec", command });
const matched = (rules: ActiveRule[], c: RuleCall) => matchingRule(rules, c)?.rule.text ?? null;

describe("reading a rule", () => {
  test("the peers' names and lembas's", () => {
    expect(rule("Bash(npm test)")).toEqual({ text: "Bash(npm test)", kind: "command", pattern: "npm test" });
    expect(rule("bash(ls:*)").kind).toBe("command");
    expect(rule("Write(docs/**)").kind).toBe("edit");
    expect(rule("multi_edit").kind).toBe("edit");
    expect(rule("WebFetch(domain:Example.com)")).toEqual({ text: "WebFetch(domain:Example.com)", kind: "fetch", pattern: "example.com" });
    expect(rule("mcp__github__create_issue")).toEqual({ text: "mcp__github__create_issue", kind: "tool", tool: "mcp__github__create_issue" });
    expect(rule("mcp__github")).toEqual({ text: "mcp__github", kind: "tool", tool: "mcp__github__" });
  });

  test("a bad rule says what is wrong", () => {
    expect(parseRule("Bash(")).toEqual({ error: `"Bash(" is not a rule: write a tool's name, alone or with what it covers in parentheses (Bash(npm test), Edit(src/**))` });
    expect(parseRule("Edit()")).toEqual({ error: `"Edit()" has nothing in its parentheses: write what it covers, or the tool's name alone` });
    expect(parseRule("Bash(:*)")).toEqual({ error: `"Bash(:*)" has no command before :*` });
    expect(parseRule("mcp__s__t(x)")).toEqual({ error: `"mcp__s__t(x)": an MCP tool's rule takes no parentheses (mcp__server__tool, or mcp__server for all its tools)` });
    expect(parseRule("Task(x)")).toEqual({ error: `"Task(x)": lembas reads what a rule covers only for Bash, Edit, Write, Read and WebFetch; write Task alone for every call of it` });
  });
});

describe("matching a call", () => {
  test("a command: the exact line, or a prefix with :*; an allow needs every command of the line, a deny any", () => {
    const allow = [active("allow", "Bash(git status:*)")];
    expect(matched(allow, bash("git status -s"))).toBe("Bash(git status:*)");
    expect(matched(allow, bash("git status"))).toBe("Bash(git status:*)");
    expect(matched(allow, bash("git statusx"))).toBeNull();
    expect(matched(allow, bash("git status && git push"))).toBeNull();
    expect(matched(allow, bash("cd sub && git status"))).toBe("Bash(git status:*)");
    expect(matched([active("allow", "Bash(npm test)")], bash("npm test -- --watch"))).toBeNull();
    const deny = [active("deny", "Bash(git push:*)")];
    expect(matched(deny, bash("git status && git push --force"))).toBe("Bash(git push:*)");
    expect(matched(deny, bash("echo $(git push)"))).toBe("Bash(git push:*)");
  });

  test("deny wins over ask over allow", () => {
    const rules = [active("allow", "Bash"), active("ask", "Bash(npm:*)"), active("deny", "Bash(npm publish:*)")];
    expect(matchingRule(rules, bash("npm publish"))?.action).toBe("deny");
    expect(matchingRule(rules, bash("npm test"))?.action).toBe("ask");
    expect(matchingRule(rules, bash("ls"))?.action).toBe("allow");
  });

  test("paths: from the project's root, at any depth without a slash, from HOME, absolute", () => {
    const edit = (path: string) => call({ toolName: "write", permission: "write", paths: [path] });
    const read = (path: string) => call({ toolName: "read", permission: "read", paths: [path] });
    expect(matched([active("allow", "Edit(src/**)")], edit(`${root}/src/a/b.ts`))).toBe("Edit(src/**)");
    expect(matched([active("allow", "Edit(src/**)")], edit(`${root}/lib/b.ts`))).toBeNull();
    expect(matched([active("allow", "Edit(src/**)")], read(`${root}/src/b.ts`))).toBeNull();
    expect(matched([active("deny", "Read(*.env)")], read(`${root}/deep/er/.env`))).toBe("Read(*.env)");
    expect(matched([active("deny", "Read(*.env)")], read(`${root}/env.txt`))).toBeNull();
    expect(matched([active("deny", "Read(.env)")], read(`${root}/deep/er/.env`))).toBe("Read(.env)");
    expect(matched([active("deny", "Read(~/.ssh/**)")], read(`${home}/.ssh/id_rsa`))).toBe("Read(~/.ssh/**)");
    expect(matched([active("deny", "Read(//etc/**)")], read("/etc/passwd"))).toBe("Read(//etc/**)");
  });

  test("hosts and MCP tools", () => {
    const fetch = (host: string) => call({ toolName: "fetch", permission: "read", hosts: [host] });
    expect(matched([active("allow", "WebFetch(domain:example.com)")], fetch("EXAMPLE.com"))).toBe("WebFetch(domain:example.com)");
    expect(matched([active("allow", "WebFetch(domain:example.com)")], fetch("api.example.com"))).toBeNull();
    expect(matched([active("allow", "WebFetch(domain:*.example.com)")], fetch("api.example.com"))).toBe("WebFetch(domain:*.example.com)");
    const mcp = call({ toolName: "mcp__github__delete_repo", permission: "exec" });
    expect(matched([active("deny", "mcp__github")], mcp)).toBe("mcp__github");
    expect(matched([active("deny", "mcp__github__create_issue")], mcp)).toBeNull();
  });
});
