import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./run.ts";

/** acpx, the third-party ACP client the tests drive lembas with, pinned. */
export const ACPX_VERSION = "0.19.1";

/**
 * Installs acpx into a cache dir of its own (not a devDependency: its lockfile entries name
 * platform packages the registry does not serve for every platform, which `npm ci` refuses), and
 * returns the path of its CLI. acpx runs under Bun here, as the machine's Node is older than the
 * one it asks for.
 */
export async function ensureAcpx(): Promise<string> {
  const dir = join(ROOT, "node_modules", ".cache", `acpx-${ACPX_VERSION}`);
  const cli = join(dir, "node_modules", "acpx", "dist", "cli.js");
  if (existsSync(cli)) return cli;
  const npm = Bun.which("npm");
  if (!npm) throw new Error("npm is needed to install acpx for the tests");
  const proc = Bun.spawn(
    [npm, "install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--engine-strict=false", `acpx@${ACPX_VERSION}`],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0 || !existsSync(cli)) throw new Error(`could not install acpx@${ACPX_VERSION}: ${stderr.slice(-500)}`);
  return cli;
}
