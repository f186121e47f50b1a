import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { tool } from "../support/tools.ts";

// Root lists any directory: the check runs as nobody, through setpriv, when this process can.
const setpriv = tool("setpriv", "util-linux", "the unlistable command directory test");
const asNobody = process.getuid?.() === 0 && setpriv !== null;
const MODULE = resolve(import.meta.dir, "../../src/project/commands.ts");

test.skipIf(!asNobody)("a command directory that cannot be listed is skipped with a notice, not an error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lembas-commands-"));
  try {
    chmodSync(dir, 0o755);
    const commands = join(dir, "project", ".agent", "commands");
    mkdirSync(commands, { recursive: true });
    writeFileSync(join(commands, "hi.md"), "---\ndescription: hi\n---\nhello\n");
    chmodSync(commands, 0o311); // can be entered, not listed
    const script = join(dir, "load.ts");
    writeFileSync(
      script,
      `import { loadCommands } from ${JSON.stringify(MODULE)};\nconst set = loadCommands({ root: ${JSON.stringify(join(dir, "project"))}, configDir: ${JSON.stringify(join(dir, "config"))} });\nconsole.log(JSON.stringify({ names: set.all.map((c) => c.name), notices: set.notices }));\n`,
    );
    chmodSync(script, 0o644);
    const proc = Bun.spawn([setpriv ?? "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const { names, notices } = JSON.parse(out) as { names: string[]; notices: string[] };
    expect(names).not.toContain("hi");
    expect(notices).toEqual([`${commands} is skipped: it cannot be listed (EACCES)`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
