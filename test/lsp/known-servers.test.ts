import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findServer, specsFor } from "../../src/lsp/known-servers.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory with an executable NAME in it (under SUB). */
function withExecutable(name: string, sub = ""): string {
  const dir = mkdtempSync(join(tmpdir(), "lembas-lsp-"));
  made.push(dir);
  mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, sub, name), "#!/bin/sh\n");
  chmodSync(join(dir, sub, name), 0o755);
  return dir;
}

describe("which language server a file gets", () => {
  test("the project's node_modules/.bin first, then PATH; in plan mode the project's own is not run", () => {
    const project = withExecutable("typescript-language-server", "node_modules/.bin");
    const bin = withExecutable("typescript-language-server");
    const specs = specsFor("ts", {});
    expect(findServer(specs, project, bin, true)).toMatchObject({ path: join(project, "node_modules/.bin/typescript-language-server"), fromProject: true });
    expect(findServer(specs, project, bin, false)).toMatchObject({ path: join(bin, "typescript-language-server"), fromProject: false });
    expect(findServer(specs, withExecutable("other"), "/nonexistent", true)).toBeNull();
  });

  test("Python gets pyright where it is installed, else pylsp; config.yaml's servers come first for their extensions", () => {
    const both = withExecutable("pylsp");
    writeFileSync(join(both, "pyright-langserver"), "#!/bin/sh\n");
    chmodSync(join(both, "pyright-langserver"), 0o755);
    const project = withExecutable("x");
    expect(findServer(specsFor("py", {}), project, both, true)?.spec.name).toBe("pyright");
    expect(findServer(specsFor("py", {}), project, withExecutable("pylsp"), true)?.spec.name).toBe("pylsp");
    const mine = { mine: { command: "pylsp", args: ["-v"], extensions: [".py"] } };
    expect(findServer(specsFor("py", mine), project, both, true)?.spec).toMatchObject({ name: "mine", args: ["-v"], configured: true });
    expect(specsFor("go", {}).map((s) => s.name)).toEqual(["gopls"]);
    expect(specsFor("rs", {}).map((s) => s.name)).toEqual(["rust-analyzer"]);
    expect(specsFor("txt", {})).toEqual([]);
  });
});

describe("what typescript-language-server is told at initialize", () => {
  test("it runs one tsserver, with no syntax server beside it (both would load the project)", () => {
    const bin = withExecutable("typescript-language-server");
    expect(findServer(specsFor("ts", {}), withExecutable("x"), bin, true)?.initializationOptions).toEqual({ tsserver: { useSyntaxServer: "never" } });
    writeFileSync(join(bin, "tsserver"), "#!/bin/sh\n");
    chmodSync(join(bin, "tsserver"), 0o755);
    expect(findServer(specsFor("ts", {}), withExecutable("x"), bin, true)?.initializationOptions).toEqual({ tsserver: { useSyntaxServer: "never", fallbackPath: realpathSync(join(bin, "tsserver")) } });
  });
});
