import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, isStep, step, person } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());


/** The tool results the model was sent, in order. */
const toolOutputs = () => {
  const messages = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return messages.filter((m) => m.role === "tool").map((m) => contentText(m.content));
};

const SECRETS = [".env", ".envrc", "id_rsa", ".ssh"];

function secrets(): void {
  writeFileSync(join(h.project, ".env"), "OPENAI_API_KEY=sk-live-123\n");
  writeFileSync(join(h.project, ".envrc"), "export KEY=envrc\n");
  writeFileSync(join(h.project, "id_rsa"), "KEY material\n");
  mkdirSync(join(h.project, ".ssh"));
  writeFileSync(join(h.project, ".ssh", "config"), "KEY ssh\n");
  writeFileSync(join(h.project, "app.ts"), "const KEY = readKey();\n");
}

describe("grep, glob and list from the project root", () => {
  for (const mode of ["plan", "auto"] as const) {
    test(`${mode} mode: grep KEY shows no protected file's line or name, and nobody is asked`, async () => {
      secrets();
      h.model.push(
        step({
          toolCalls: [
            { name: "grep", arguments: { pattern: "KEY", output_mode: "content" } },
            { name: "grep", arguments: { pattern: "KEY" } },
            { name: "glob", arguments: { pattern: "**/*" } },
            { name: "list", arguments: {} },
          ],
        }),
        step({ text: "ok" }),
      );
      const session = await h.session({ mode });
      const who = person();
      session.interaction = who;
      await session.prompt({ text: "find the key" });
      const [content, files, globbed, listed] = toolOutputs();
      expect(content).toBe("app.ts:1:const KEY = readKey();");
      expect(files).toBe("app.ts");
      expect(globbed).toBe("app.ts");
      expect(listed).toBe("./\n  app.ts");
      for (const output of toolOutputs()) for (const secret of [...SECRETS, "sk-live"]) expect(output).not.toContain(secret);
      expect(who.asked).toEqual([]);
    });
  }

  test("plan mode: grep with .env as its path asks first, as read does", async () => {
    secrets();
    h.model.push(step({ toolCalls: [{ name: "grep", arguments: { pattern: "KEY", path: ".env", output_mode: "content" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "plan" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "find the key" });
    expect(who.asked[0]?.reason).toContain("protected");
    expect(toolOutputs().join("\n")).not.toContain("sk-live");
  });
});

describe("every name starting .env, and .git itself, are protected", () => {
  for (const name of [".envrc", ".env-local", ".env_prod"]) {
    test(`auto mode: read ${name} asks and, denied, shows nothing`, async () => {
      writeFileSync(join(h.project, name), "SECRET=1\n");
      h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: name } }] }), step({ text: "ok" }));
      const session = await h.session({ mode: "auto" });
      const who = person([{ outcome: "deny" }]);
      session.interaction = who;
      await session.prompt({ text: "read" });
      expect(who.asked[0]?.reason).toContain("protected");
      expect(toolOutputs().join("\n")).not.toContain("SECRET");
    });
  }

  test("auto mode: writing a new .envrc2 asks and, denied, writes nothing", async () => {
    h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: ".envrc2", content: "export X=1\n" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "auto" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "write" });
    expect(who.asked[0]?.reason).toContain("protected");
    expect(existsSync(join(h.project, ".envrc2"))).toBe(false);
  });

  test("auto mode: write .git and list .git ask", async () => {
    mkdirSync(join(h.project, ".git"));
    writeFileSync(join(h.project, ".git", "HEAD"), "ref: refs/heads/main\n");
    h.model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: ".git", content: "gone" } }, { name: "list", arguments: { path: ".git" } }] }),
      step({ text: "ok" }),
    );
    const session = await h.session({ mode: "auto" });
    const who = person([{ outcome: "deny" }, { outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "clean up" });
    expect(who.asked.map((a) => [a.toolName, a.reason.includes("protected")])).toEqual([
      ["write", true],
      ["list", true],
    ]);
    expect(readFileSync(join(h.project, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    expect(toolOutputs().join("\n")).not.toContain("HEAD");
  });
});

describe("symlinks into protected places", () => {
  test("plan mode: grep through a symlinked directory into one config.yaml protects asks first and, denied, shows nothing", async () => {
    await h.close();
    h = await engineHarness({ config: { protected: ["infra/**"] } });
    mkdirSync(join(h.project, "infra"));
    writeFileSync(join(h.project, "infra", "prod.tf"), "KEY = prod-material\n");
    symlinkSync("infra", join(h.project, "view"));
    h.model.push(step({ toolCalls: [{ name: "grep", arguments: { pattern: "KEY", path: "view", output_mode: "content" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "plan" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "find the key" });
    expect(who.asked[0]?.reason).toContain("protected");
    expect(toolOutputs().join("\n")).not.toContain("prod-material");
  });

  for (const mode of ["plan", "auto"] as const) {
    test(`${mode} mode: grep over the project shows nothing of a file symlinked to .env, nor of a directory symlinked to .ssh`, async () => {
      secrets();
      symlinkSync(".env", join(h.project, "notes"));
      symlinkSync(".ssh", join(h.project, "keys"));
      h.model.push(
        step({ toolCalls: [{ name: "grep", arguments: { pattern: "KEY", output_mode: "content" } }, { name: "glob", arguments: { pattern: "**/*" } }] }),
        step({ text: "ok" }),
      );
      const session = await h.session({ mode });
      const who = person();
      session.interaction = who;
      await session.prompt({ text: "find the key" });
      const [content, globbed] = toolOutputs();
      expect(content).toBe("app.ts:1:const KEY = readKey();");
      expect(globbed?.split("\n").sort()).toEqual(["app.ts", "keys", "notes"]);
      expect(who.asked).toEqual([]);
    });
  }

  test("auto mode: read .ENV asks, as .env does (on a case-insensitive filesystem it is the same file)", async () => {
    writeFileSync(join(h.project, ".ENV"), "SECRET=1\n");
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: ".ENV" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "auto" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "read" });
    expect(who.asked[0]?.reason).toContain("protected");
    expect(toolOutputs().join("\n")).not.toContain("SECRET");
  });
});
