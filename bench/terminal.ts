// A remote terminal's throughput: `head -c 200M /dev/urandom | base64` (50M with --quick) through the PTY, the
// service and the link to the simulated instance, beside the same command through a bare PTY in
// the same run, with the service's peak memory. One JSON line; goal: ≥ 0.85 of the bare PTY.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPty } from "../src/terminal/pty.ts";
import { startDevice } from "../test/support/device.ts";
import { LIMITS } from "./goals.ts";

/** --quick: a 50 MB flood instead of 200 (bench/all.ts --quick). */
const MB = process.argv.includes("--quick") ? 50 : 200;
const RUNS = 3;
const COMMAND = `head -c ${MB}000000 /dev/urandom | base64`;
/** What base64 writes for MB megabytes (76-column lines, \r\n on a tty). */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number) => Math.round(n * 10) / 10;

async function bare(): Promise<number> {
  const started = performance.now();
  const pty = openPty({ command: ["sh", "-c", COMMAND], cwd: "/tmp", env: { PATH: process.env.PATH ?? "" }, cols: 200, rows: 50 });
  let bytes = 0;
  pty.onData((chunk) => void (bytes += chunk.length));
  await pty.exited;
  return bytes / 1e6 / ((performance.now() - started) / 1000);
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

const device = await startDevice();
try {
  writeFileSync(
    join(device.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${device.model.url}\nremote:\n  roots: [${device.work}]\n  terminal: true\n  terminal_integration: false\n`,
  );
  const link = await device.serve();
  const pid = device.service?.pid ?? 0;
  let peak = 0;
  const linked: number[] = [];
  const bares: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bares.push(await bare());
    const { terminalId } = (await link.request("_lembas/terminal/open", { cols: 200, rows: 50 })) as { terminalId: string };
    // The shell runs the command and exits, so the time is start to exit, like the bare PTY's.
    let bytes = 0;
    let seen = 0;
    let exited = false;
    const started = performance.now();
    link.notify("_lembas/terminal/input", { terminalId, data: Buffer.from(`exec sh -c '${COMMAND}'\n`).toString("base64") });
    while (!exited) {
      for (; seen < link.notifications.length; seen++) {
        const n = link.notifications[seen];
        if (n?.method === "_lembas/terminal/output") bytes += Math.floor(((n.params as { data: string }).data.length * 3) / 4);
        if (n?.method === "_lembas/terminal/exit") exited = true;
      }
      link.notifications.splice(0, seen);
      seen = 0;
      peak = Math.max(peak, rssOf(pid));
      await Bun.sleep(5);
    }
    linked.push(bytes / 1e6 / ((performance.now() - started) / 1000));
  }
  const linkRate = median(linked);
  const bareRate = median(bares);
  console.log(
    JSON.stringify({
      bench: "terminal",
      mb: MB,
      runs: RUNS,
      link_MBps: round(linkRate),
      bare_pty_MBps: round(bareRate),
      ratio: Math.round((linkRate / bareRate) * 100) / 100,
      goal: LIMITS.terminal.ratio,
      service_peak_rss_MB: Math.round(peak / 1e6),
    }),
  );
} finally {
  await device.close();
}
