import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { TARGETS, hostTarget, sha256File, sumsFile } from "../../build.ts";
import { ROOT } from "../support/run.ts";
import { tool } from "../support/tools.ts";

const INSTALL_SH = join(ROOT, "install.sh");
let root: string;
let server: Server<undefined>;
let base: string;

/** A fake release for every platform: a script that prints its own name as its version. */
function fakeBinary(name: string): string {
  return `#!/bin/sh\nif [ "$1" = --version ]; then echo "lembas 9.9.9 (${name})"; exit 0; fi\necho "$*" >> "$HOME/calls"\n`;
}

async function writeRelease(dir: string, corrupt = false): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const sums = [];
  for (const target of TARGETS) {
    const name = `lembas-${target.name}`;
    writeFileSync(join(dir, name), fakeBinary(name));
    sums.push({ name, sha256: corrupt ? "0".repeat(64) : await sha256File(join(dir, name)) });
  }
  writeFileSync(join(dir, "SHA256SUMS"), sumsFile(sums));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lembas-release-"));
  await writeRelease(join(root, "good"));
  await writeRelease(join(root, "bad"), true);
  // A release with its arm64 build missing, for a download that fails (404).
  await writeRelease(join(root, "partial"));
  rmSync(join(root, "partial", "lembas-linux-arm64"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      const file = Bun.file(join(root, path));
      if (path.includes("..") || !(await file.exists())) return new Response("not found", { status: 404 });
      return new Response(file);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.stop(true);
  rmSync(root, { recursive: true, force: true });
});

let box: string;
let bin: string;
let tmp: string;
beforeEach(() => {
  box = mkdtempSync(join(tmpdir(), "lembas-install-"));
  bin = join(box, "bin");
  tmp = join(box, "tmp");
  mkdirSync(tmp);
  mkdirSync(join(box, "home"));
});
afterEach(() => rmSync(box, { recursive: true, force: true }));

type Run = { code: number; stdout: string; stderr: string };

async function install(opts: { release?: string; env?: Record<string, string>; args?: string[] } = {}): Promise<Run> {
  const proc = Bun.spawn(["sh", INSTALL_SH, ...(opts.args ?? [])], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(box, "home"),
      TMPDIR: tmp,
      LEMBAS_INSTALL_BASE: `${base}/${opts.release ?? "good"}`,
      LEMBAS_INSTALL_DIR: bin,
      LEMBAS_INSTALL_OS: "linux",
      LEMBAS_INSTALL_ARCH: "x64",
      LEMBAS_INSTALL_LIBC: "glibc",
      ...opts.env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** The old binary a failed install must leave as it was. */
function oldBinary(): string {
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "lembas"), "#!/bin/sh\necho old\n");
  chmodSync(join(bin, "lembas"), 0o755);
  return readFileSync(join(bin, "lembas"), "utf8");
}

function expectUntouched(old: string): void {
  expect(readdirSync(bin)).toEqual(["lembas"]);
  expect(readFileSync(join(bin, "lembas"), "utf8")).toBe(old);
  expect(readdirSync(tmp)).toEqual([]);
}

const shellcheck = tool("shellcheck", "shellcheck", "the check of install.sh");

test.skipIf(!shellcheck)("install.sh is POSIX sh that shellcheck passes (where shellcheck is installed)", () => {
  const result = Bun.spawnSync([shellcheck ?? "shellcheck", "--shell=sh", INSTALL_SH], { stdout: "pipe" });
  expect(result.stdout.toString()).toBe("");
  expect(result.exitCode).toBe(0);
});

test("it installs the checked binary, says how to add the dir to PATH, and leaves no temp files", async () => {
  const result = await install({ env: { SHELL: "/bin/bash" } });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(readFileSync(join(bin, "lembas"), "utf8")).toBe(fakeBinary("lembas-linux-x64"));
  expect(readdirSync(bin)).toEqual(["lembas"]);
  expect(readdirSync(tmp)).toEqual([]);
  expect(result.stdout.split("\n")).toEqual([
    `installed ${join(bin, "lembas")} (lembas 9.9.9 (lembas-linux-x64))`,
    `${bin} is not on your PATH: run  echo 'export PATH="${bin}:$PATH"' >> ${join(box, "home", ".bashrc")}  and open a new shell`,
    "to run it as a service (needed for the web UI): lembas service install",
    "",
  ]);
});

test("it picks the platform's build: arm64 macOS, musl Linux", async () => {
  expect((await install({ env: { LEMBAS_INSTALL_OS: "Darwin", LEMBAS_INSTALL_ARCH: "arm64" } })).stdout).toContain("(lembas-darwin-arm64)");
  expect((await install({ env: { LEMBAS_INSTALL_ARCH: "aarch64", LEMBAS_INSTALL_LIBC: "musl" } })).stdout).toContain("(lembas-linux-arm64-musl)");
});

test("a wrong checksum is one line, exit 1, and the old binary stays", async () => {
  const old = oldBinary();
  const result = await install({ release: "bad" });
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(
    "lembas install: the checksum of lembas-linux-x64 is wrong (the download is damaged or was tampered with): nothing was installed\n",
  );
  expectUntouched(old);
});

test("an unknown system or processor is one line and exit 1", async () => {
  const os = await install({ env: { LEMBAS_INSTALL_OS: "Plan9" } });
  expect(os).toMatchObject({ code: 1, stderr: "lembas install: there is no lembas build for the system Plan9 (only Linux and macOS)\n" });
  const arch = await install({ env: { LEMBAS_INSTALL_ARCH: "riscv64" } });
  expect(arch).toMatchObject({ code: 1, stderr: "lembas install: there is no lembas build for the processor riscv64 (only x64 and arm64)\n" });
  expect(existsSync(bin)).toBe(false);
  expect(readdirSync(tmp)).toEqual([]);
});

test("a failed download (404) is one line, exit 1, and the old binary stays", async () => {
  const old = oldBinary();
  const result = await install({ release: "partial", env: { LEMBAS_INSTALL_ARCH: "arm64" } });
  expect(result).toMatchObject({
    code: 1,
    stderr: `lembas install: could not download ${base}/partial/lembas-linux-arm64 (curl: (22) The requested URL returned error: 404)\n`,
  });
  expectUntouched(old);
  const nothing = await install({ release: "nowhere" });
  expect(nothing.code).toBe(1);
  expect(nothing.stderr).toStartWith(`lembas install: could not download ${base}/nowhere/lembas-linux-x64 (`);
  expect(nothing.stderr.split("\n")).toHaveLength(2);
  expectUntouched(old);
});

test("a binary that cannot run here does not replace the old one", async () => {
  const old = oldBinary();
  const broken = join(root, "broken");
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, "lembas-linux-x64"), "#!/bin/sh\necho 'Error loading shared library libstdc++.so.6' >&2\nexit 127\n");
  writeFileSync(join(broken, "SHA256SUMS"), sumsFile([{ name: "lembas-linux-x64", sha256: await sha256File(join(broken, "lembas-linux-x64")) }]));
  const result = await install({ release: "broken" });
  expect(result).toMatchObject({
    code: 1,
    stderr: "lembas install: the downloaded lembas-linux-x64 does not run on this machine: Error loading shared library libstdc++.so.6\n",
  });
  expectUntouched(old);
});

test("it replaces a binary that is running: the old process keeps running, the new file is in place", async () => {
  mkdirSync(bin);
  // A real executable as the old binary: writing into it while it runs would fail (ETXTBSY); a rename does not.
  copyFileSync("/bin/sleep", join(bin, "lembas"));
  chmodSync(join(bin, "lembas"), 0o755);
  const running = Bun.spawn([join(bin, "lembas"), "30"], { stdout: "ignore", stderr: "ignore" });
  try {
    const result = await install({ env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(running.exitCode).toBeNull();
    expect(() => process.kill(running.pid, 0)).not.toThrow();
    expect(readFileSync(join(bin, "lembas"), "utf8")).toBe(fakeBinary("lembas-linux-x64"));
    expect(readdirSync(bin)).toEqual(["lembas"]);
    expect(result.stdout).not.toContain("is not on your PATH");
  } finally {
    running.kill("SIGKILL");
    await running.exited;
  }
});

const wget = tool("wget", "wget", "install.sh's wget and shasum path");
const shasum = tool("shasum", "perl", "install.sh's wget and shasum path");

test.skipIf(!wget || !shasum)("without curl and sha256sum it uses wget and shasum", async () => {
  // Every tool of /usr/bin and /bin but curl and sha256sum.
  const tools = join(box, "tools");
  mkdirSync(tools);
  for (const dir of ["/bin", "/usr/bin"]) {
    for (const name of readdirSync(dir)) {
      if (name === "curl" || name === "sha256sum" || existsSync(join(tools, name))) continue;
      symlinkSync(join(dir, name), join(tools, name));
    }
  }
  const result = await install({ env: { PATH: tools } });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(readFileSync(join(bin, "lembas"), "utf8")).toBe(fakeBinary("lembas-linux-x64"));
  const bad = await install({ release: "bad", env: { PATH: tools } });
  expect(bad.stderr).toContain("the checksum of lembas-linux-x64 is wrong");
});

test("--service runs lembas service install with the new binary", async () => {
  const result = await install({ args: ["--service"] });
  expect(result.code).toBe(0);
  expect(readFileSync(join(box, "home", "calls"), "utf8")).toBe("service install\n");
  expect(result.stdout).not.toContain("to run it as a service");
  expect((await install({ args: ["--bogus"] })).stderr).toBe("lembas install: unknown option --bogus (the only option is --service)\n");
});

test("the real binary built by build.ts installs and runs (when dist/ has one)", async () => {
  const name = `lembas-${hostTarget()}`;
  const release = join(root, "real");
  mkdirSync(release, { recursive: true });
  const released = join(ROOT, "dist", name);
  const local = join(ROOT, "dist", "lembas");
  const source = existsSync(released) ? released : existsSync(local) ? local : null;
  if (!source) return;
  symlinkSync(source, join(release, name));
  writeFileSync(join(release, "SHA256SUMS"), sumsFile([{ name, sha256: await sha256File(source) }]));
  // No detection overrides: this machine's own platform.
  const result = await install({ release: "real", env: { LEMBAS_INSTALL_OS: "", LEMBAS_INSTALL_ARCH: "", LEMBAS_INSTALL_LIBC: "" } });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const version = Bun.spawnSync([join(bin, "lembas"), "--version"]).stdout.toString();
  expect(version).toMatch(/^lembas \d+\.\d+\.\d+ \(\S+\)\n$/);
  expect(result.stdout).toContain(`installed ${join(bin, "lembas")} (${version.trim()})`);
});
