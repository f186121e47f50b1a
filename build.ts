// Builds the standalone binary: `bun run build` → dist/lembas for this machine.
// Version and commit are stamped in with --define; `--target bun-<os>-<arch>` comes with the release issue.
import { $ } from "bun";
import pkg from "./package.json" with { type: "json" };

async function gitCommit(): Promise<string> {
  const result = await $`git rev-parse --short=12 HEAD`.quiet().nothrow();
  const commit = result.stdout.toString().trim();
  if (result.exitCode !== 0 || !commit) return "unknown";
  const dirty = (await $`git status --porcelain --untracked-files=no`.quiet().nothrow()).stdout.toString().trim();
  return dirty ? `${commit}-dirty` : commit;
}

export async function build(outfile = "dist/lembas", target?: Bun.Build.CompileTarget): Promise<string> {
  const commit = await gitCommit();
  const result = await Bun.build({
    entrypoints: ["src/index.ts"],
    compile: target ? { outfile, target } : { outfile },
    minify: true,
    bytecode: true,
    format: "esm",
    splitting: true,
    sourcemap: "linked",
    define: {
      LEMBAS_VERSION: JSON.stringify(pkg.version),
      LEMBAS_COMMIT: JSON.stringify(commit),
    },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("build failed");
  }
  return outfile;
}

if (import.meta.main) {
  const out = await build();
  console.error(`built ${out}`);
}
