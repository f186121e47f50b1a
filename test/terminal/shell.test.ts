import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectShell, passwdLineShell, readPasswdShell, shellKind, shellLaunch, type Shell } from "../../src/terminal/shell.ts";
import { terminalEnv } from "../../src/terminal/terminal.ts";

const BASH = Bun.which("bash") ?? "/bin/bash";

describe("detectShell", () => {
  test("$SHELL first, then the passwd entry, then /bin/sh; each must be an executable absolute path", () => {
    expect(detectShell({ SHELL: BASH }, "/bin/sh")).toEqual({ path: BASH, kind: "bash" });
    expect(detectShell({}, BASH)).toEqual({ path: BASH, kind: "bash" });
    expect(detectShell({ SHELL: "/nonexistent/zsh" }, BASH)).toEqual({ path: BASH, kind: "bash" });
    expect(detectShell({ SHELL: "bash" }, null)).toEqual({ path: "/bin/sh", kind: "other" });
    expect(detectShell({ SHELL: "/etc/passwd" }, null)).toEqual({ path: "/bin/sh", kind: "other" });
  });

  test("the kind comes from the program's name", () => {
    expect(shellKind("/usr/bin/zsh")).toBe("zsh");
    expect(shellKind("/opt/homebrew/bin/fish")).toBe("fish");
    expect(shellKind("-bash")).toBe("bash");
    expect(shellKind("/bin/rbash")).toBe("other");
    expect(shellKind("/bin/dash")).toBe("other");
  });

  test("the passwd entry's shell is the seventh field of the user's line", () => {
    const passwd = "root:x:0:0:root:/root:/bin/bash\nme:x:1000:1000:Me,,,:/home/me:/usr/bin/fish\n";
    expect(passwdLineShell(passwd, 1000)).toBe("/usr/bin/fish");
    expect(passwdLineShell(passwd, 1001)).toBeNull();
  });

  test.skipIf(process.platform !== "linux")("this user's passwd entry is found", () => {
    const uid = process.getuid?.() ?? 0;
    expect(readPasswdShell(uid)).toBe(passwdLineShell(readFileSync("/etc/passwd", "utf8"), uid));
  });
});

describe("shellLaunch", () => {
  const env = { PATH: "/usr/bin:/bin", HOME: "/home/me" };
  const launch = (shell: Shell, integration = true, extra: Record<string, string> = {}) =>
    shellLaunch({ shell, integration, home: "/home/me", env: { ...env, ...extra } });

  test("without integration, or for another shell: a plain login shell (argv[0] '-name'), env unchanged", () => {
    for (const shell of [{ path: BASH, kind: "bash" as const }, { path: "/bin/sh", kind: "other" as const }]) {
      const plain = launch(shell, shell.kind === "other");
      expect(plain.command).toEqual([shell.path]);
      expect(plain.argv0).toBe(`-${shell.path.split("/").pop()}`);
      expect(plain.env).toEqual(env);
      expect(plain.integration).toBe(false);
    }
  });

  test("bash: --rcfile in a private temp dir, removed by cleanup(); the environment unchanged", () => {
    const bash = launch({ path: BASH, kind: "bash" });
    const rc = bash.command[2] ?? "";
    expect(bash.command).toEqual([BASH, "--rcfile", rc, "-i"]);
    expect(bash.env).toEqual(env);
    const dir = join(rc, "..");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(rc, "utf8")).toContain("__lembas_precmd");
    bash.cleanup();
    expect(existsSync(dir)).toBe(false);
  });

  test("zsh: ZDOTDIR points at the wrapper, the person's ZDOTDIR handed over for it to restore", () => {
    const zsh = launch({ path: "/usr/bin/zsh", kind: "zsh" }, true, { ZDOTDIR: "/home/me/.config/zsh" });
    const dir = zsh.env.ZDOTDIR ?? "";
    expect(zsh.command).toEqual(["/usr/bin/zsh", "-l"]);
    expect(zsh.env).toEqual({ ...env, ZDOTDIR: dir, LEMBAS_USER_ZDOTDIR: "/home/me/.config/zsh" });
    for (const file of [".zshenv", ".zprofile", ".zshrc", ".zlogin"]) expect(existsSync(join(dir, file))).toBe(true);
    expect(readFileSync(join(dir, ".zshenv"), "utf8")).toContain(`ZDOTDIR='${dir}'`);
    zsh.cleanup();
    expect(existsSync(dir)).toBe(false);
  });

  test("fish: a login shell that sources the wrapper after the person's configuration", () => {
    const fish = launch({ path: "/usr/bin/fish", kind: "fish" });
    expect(fish.command.slice(0, 3)).toEqual(["/usr/bin/fish", "--login", "--init-command"]);
    expect(fish.command[3]).toMatch(/^source '.+lembas\.fish'$/);
    expect(fish.env).toEqual(env);
    fish.cleanup();
  });

  test("temp dirs left by a lembas process that is gone are removed", async () => {
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    const stale = join(tmpdir(), `lembas-shell-${dead.pid}-stale`);
    mkdirSync(stale, { recursive: true });
    launch({ path: BASH, kind: "bash" }).cleanup();
    expect(existsSync(stale)).toBe(false);
  });
});

describe("terminalEnv", () => {
  test("a service's own variables are not handed down; TERM is xterm's", () => {
    const env = terminalEnv({ PATH: "/bin", HOME: "/h", JOURNAL_STREAM: "8:1", INVOCATION_ID: "x", SHLVL: "3", PWD: "/srv", LANG: "C.UTF-8", GONE: undefined });
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C.UTF-8", TERM: "xterm-256color", COLORTERM: "truecolor" });
  });
});
