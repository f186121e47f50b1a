// Builds the standalone binary.
//   bun build.ts                  → dist/lembas for this machine
//   bun build.ts --outfile PATH   → the same, at PATH (its source maps beside it; test/run.ts builds so)
//   bun build.ts --all            → dist/lembas-<os>-<arch>[-musl] for every released platform, and dist/SHA256SUMS
// Version, commit and the tools' JSON schemas are stamped in with `define`.
//
// Cross-compiling needs the Bun runtime of each target. Bun would download it itself, always from
// registry.npmjs.org and into ~/.bun; instead --all takes it from the npm package @oven/bun-<platform>
// at this Bun's exact version (bytecode is tied to it), fetched once with `npm pack` (so npm's own
// registry, proxy and auth settings apply) into a cache, and hands it to Bun as `executablePath`.
// With the cache filled, --all runs offline. A target that cannot be built is reported in one line
// and the others are still built; the exit code is then 1.
import { $ } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { START_JIT_POLICY } from "./src/jit-policy.ts";

/** A released platform: the name in dist/ and install.sh, Bun's compile target, the npm package of its runtime. */
export type Target = { name: string; compile: Bun.Build.CompileTarget; npm: string };

/** Every platform --all builds; install.sh picks among these names. */
export const TARGETS: readonly Target[] = [
  { name: "linux-x64", compile: "bun-linux-x64", npm: "@oven/bun-linux-x64" },
  { name: "linux-arm64", compile: "bun-linux-arm64", npm: "@oven/bun-linux-aarch64" },
  { name: "linux-x64-musl", compile: "bun-linux-x64-musl", npm: "@oven/bun-linux-x64-musl" },
  { name: "linux-arm64-musl", compile: "bun-linux-arm64-musl", npm: "@oven/bun-linux-aarch64-musl" },
  { name: "darwin-x64", compile: "bun-darwin-x64", npm: "@oven/bun-darwin-x64" },
  { name: "darwin-arm64", compile: "bun-darwin-arm64", npm: "@oven/bun-darwin-aarch64" },
];

const ROOT = import.meta.dir;
const DIST = join(ROOT, "dist");

async function gitCommit(): Promise<string> {
  const result = await $`git rev-parse --short=12 HEAD`.cwd(ROOT).quiet().nothrow();
  const commit = result.stdout.toString().trim();
  if (result.exitCode !== 0 || !commit) return "unknown";
  const dirty = (await $`git status --porcelain --untracked-files=no`.cwd(ROOT).quiet().nothrow()).stdout.toString().trim();
  return dirty ? `${commit}-dirty` : commit;
}

/** The tools' input JSON schemas, made here once so the binary never converts them at run time. */
async function toolSchemas(): Promise<Record<string, Record<string, unknown>>> {
  const { ALL_TOOLS } = await import("./src/tools/index.ts");
  const { inputSchema } = await import("./src/tools/tool.ts");
  return Object.fromEntries(ALL_TOOLS.map((tool) => [tool.name, inputSchema(tool)]));
}

/** How to compile for another platform: its target and the runtime to embed the program in. */
export type CrossCompile = { target: Bun.Build.CompileTarget; executablePath: string };

/** The starts bytecode-order/record.ts records, the most common first: the terminal, `lembas serve`, `lembas run`. */
export const BYTECODE_WAYS = ["terminal", "serve", "run"] as const;

/** The bytecode profiles bytecode-order/record.ts wrote, in BYTECODE_WAYS's order; those present. */
export function bytecodeOrder(): string[] {
  return BYTECODE_WAYS.map((way) => join(ROOT, "bytecode-order", `${way}.txt`)).filter((file) => existsSync(file));
}

/** Compiles src/index.ts into `outfile`: for this machine, or with `cross` for another platform. */
export async function build(outfile = join(DIST, "lembas"), cross?: CrossCompile, commit?: string, options: { bytecodeOrder?: false } = {}): Promise<string> {
  const order = options.bytecodeOrder === false ? [] : bytecodeOrder();
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/index.ts")],
    // The start runs under raised tier-up thresholds until the program says it is up (src/jit-policy.ts),
    // and the bytecode a start runs is laid out together at the front (bytecode-order/record.ts).
    // The binary reads no .env and no bunfig.toml from where it is started: Bun's defaults would load the
    // project's .env into lembas's environment (and its commands'), run a bunfig.toml's `preload` inside
    // lembas, and list every directory from / down to the working directory at each start to look for them.
    compile: {
      ...(cross ? { outfile, target: cross.target, executablePath: cross.executablePath } : { outfile }),
      jitPolicy: START_JIT_POLICY,
      bytecodeOrder: order.length > 0 && order,
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    minify: true,
    bytecode: true,
    format: "esm",
    splitting: true,
    sourcemap: "linked",
    define: {
      LEMBAS_VERSION: JSON.stringify(pkg.version),
      LEMBAS_COMMIT: JSON.stringify(commit ?? (await gitCommit())),
      LEMBAS_TOOL_SCHEMAS: JSON.stringify(await toolSchemas()),
    },
  });
  if (!result.success) throw new Error(`the build failed: ${result.logs.map(String).join("; ")}`);
  return outfile;
}

/** Where fetched runtimes are kept: $LEMBAS_BUILD_CACHE, else node_modules/.cache/lembas-runtimes. */
export function runtimeCache(env: Record<string, string | undefined> = process.env): string {
  return resolve(env.LEMBAS_BUILD_CACHE || join(ROOT, "node_modules", ".cache", "lembas-runtimes"));
}

/**
 * The Bun runtime binary of `target` at this Bun's version: the running Bun when the target is
 * this machine, else the cache, else fetched into the cache with `npm pack`.
 */
export async function runtimeFor(target: Target, cache = runtimeCache()): Promise<string> {
  if (target.name === hostTarget()) return process.execPath;
  const dir = join(cache, `${target.npm.replace("@oven/", "")}-${Bun.version}`);
  const binary = join(dir, "bin", "bun");
  if (existsSync(binary)) return binary;
  await fetchRuntime(`${target.npm}@${Bun.version}`, dir);
  return binary;
}

/** This machine's platform as TARGETS names it (glibc or musl told apart by the runtime's report). */
export function hostTarget(): string {
  const arch = process.arch;
  if (process.platform !== "linux") return `${process.platform}-${arch}`;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime ? `linux-${arch}` : `linux-${arch}-musl`;
}

/** `npm pack SPEC` into a temp dir beside `dir`, unpacked, then renamed to `dir`: whole or not at all. */
async function fetchRuntime(spec: string, dir: string): Promise<void> {
  const parent = resolve(dir, "..");
  mkdirSync(parent, { recursive: true });
  const temp = mkdtempSync(join(parent, ".fetch-"));
  try {
    if (!Bun.which("npm")) throw new Error(`npm is needed to fetch ${spec} and was not found on PATH`);
    const packed = await $`npm pack ${spec} --pack-destination ${temp} --prefer-offline --loglevel=error`.cwd(temp).quiet().nothrow();
    const tarball = packed.stdout.toString().trim().split("\n").pop() ?? "";
    if (packed.exitCode !== 0 || !tarball) throw new Error(`npm could not fetch ${spec}: ${npmError(packed.stderr.toString())}`);
    const unpacked = await $`tar -xzf ${join(temp, tarball)} -C ${temp}`.quiet().nothrow();
    if (unpacked.exitCode !== 0) throw new Error(`could not unpack ${tarball}: ${firstLine(unpacked.stderr.toString())}`);
    if (!existsSync(join(temp, "package", "bin", "bun"))) throw new Error(`${spec} holds no bin/bun`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(temp, "package"), dir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The line of npm's error output that says what happened (not its code, errno or stack lines). */
function npmError(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim());
  return lines.find((l) => l !== "" && !/^(code|errno|syscall)\b/.test(l)) ?? "no message";
}

function firstLine(text: string): string {
  return text.trim().split("\n").find((line) => line.trim() !== "")?.trim() ?? "no message";
}

/** The sha256 of a file as lowercase hex, read in a stream (the binaries are ~100 MB). */
export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** SHA256SUMS in sha256sum's text format: `<hex>  <name>` a line, for `sha256sum -c`. */
export function sumsFile(sums: ReadonlyArray<{ name: string; sha256: string }>): string {
  return sums.map((s) => `${s.sha256}  ${s.name}\n`).join("");
}

type Built = { name: string; sha256: string };

/** Builds every target it can into dist/ (source maps in dist/sourcemaps/); returns what was built and one line per target that was not. */
export async function buildAll(targets: readonly Target[] = TARGETS): Promise<{ built: Built[]; failed: string[] }> {
  const commit = await gitCommit();
  const runtimes = await Promise.allSettled(targets.map((t) => runtimeFor(t)));
  const built: Built[] = [];
  const failed: string[] = [];
  for (const [i, target] of targets.entries()) {
    const runtime = runtimes[i];
    const name = `lembas-${target.name}`;
    // A platform not built this time loses its old binary too: dist/ and SHA256SUMS agree.
    rmSync(join(DIST, name), { force: true });
    if (!runtime || runtime.status === "rejected") {
      failed.push(`${name}: no Bun runtime for ${target.name}: ${reason(runtime?.reason)}`);
      continue;
    }
    try {
      // Built beside its source maps in dist/sourcemaps/<platform>/, then moved up: dist/ holds what is released.
      const maps = join(DIST, "sourcemaps", target.name);
      rmSync(maps, { recursive: true, force: true });
      const out = await build(join(maps, name), { target: target.compile, executablePath: runtime.value }, commit);
      renameSync(out, join(DIST, name));
      built.push({ name, sha256: await sha256File(join(DIST, name)) });
      console.error(`built dist/${name}`);
    } catch (error) {
      failed.push(`${name}: ${reason(error)}`);
    }
  }
  await Bun.write(join(DIST, "SHA256SUMS"), sumsFile(built));
  return { built, failed };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

if (import.meta.main) {
  if (process.argv.includes("--all")) {
    const { built, failed } = await buildAll();
    for (const line of failed) console.error(`not built: ${line}`);
    console.error(`wrote dist/SHA256SUMS (${built.length} of ${TARGETS.length} platforms)`);
    if (failed.length > 0) process.exit(1);
  } else if (process.argv.includes("--outfile")) {
    const outfile = process.argv[process.argv.indexOf("--outfile") + 1];
    if (!outfile) throw new Error("--outfile needs a path: bun build.ts --outfile PATH");
    await build(resolve(outfile));
  } else {
    // Each build names its chunks' source maps anew: the last build's are removed, not piled up.
    for (const file of existsSync(DIST) ? readdirSync(DIST, { withFileTypes: true }) : []) {
      if (file.isFile() && /^chunk-\w+\.js\.map$/.test(file.name)) rmSync(join(DIST, file.name));
    }
    const out = await build();
    console.error(`built ${out.startsWith(ROOT) ? out.slice(ROOT.length + 1) : out}`);
  }
}
