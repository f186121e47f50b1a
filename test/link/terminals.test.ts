import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import type { Link } from "../support/instance.ts";
import { rpcError } from "../support/rpc.ts";
import { tool } from "../support/tools.ts";

const zsh = tool("zsh", "zsh", "the zsh prompt marks over the link");
const fish = tool("fish", "fish", "the fish prompt marks over the link");

let d: Device;
afterEach(() => d.close());

/** A device with remote terminals on (integration as asked), serving. */
async function terminalDevice(opts: { integration?: boolean; shell?: string } = {}): Promise<Link> {
  d = await startDevice();
  writeFileSync(
    join(d.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  terminal: true\n  terminal_integration: ${opts.integration ?? true}\n`,
  );
  return d.serve({ env: opts.shell ? { SHELL: opts.shell } : {} });
}

/** Collects one terminal's output, decoded, as it arrives. */
function screen(link: Link, terminalId: string) {
  let text = "";
  let seen = 0;
  const read = () => {
    for (; seen < link.notifications.length; seen++) {
      const n = link.notifications[seen];
      if (n?.method !== "_lembas/terminal/output") continue;
      const p = n.params as { terminalId: string; data: string };
      if (p.terminalId === terminalId) text += Buffer.from(p.data, "base64").toString("latin1");
    }
    return text;
  };
  return {
    read,
    async waitFor(pattern: RegExp | string, ms = 10_000) {
      const end = Date.now() + ms;
      for (;;) {
        const now = read();
        if (typeof pattern === "string" ? now.includes(pattern) : pattern.test(now)) return now;
        if (Date.now() > end) throw new Error(`terminal never showed ${pattern}; it shows:\n${JSON.stringify(now.slice(-600))}`);
        await Bun.sleep(20);
      }
    },
  };
}

const type = (link: Link, terminalId: string, text: string) => link.notify("_lembas/terminal/input", { terminalId, data: Buffer.from(text).toString("base64") });
const open = (link: Link, params: Record<string, unknown> = {}) =>
  link.request("_lembas/terminal/open", { cols: 100, rows: 30, ...params }) as Promise<{ terminalId: string; cwd: string; shell: string; integration: boolean }>;

/** The OSC 133 and OSC 7 marks in a stream, in order. */
function marks(text: string): string[] {
  const out: string[] = [];
  const re = /\x1b\](133;[A-D](?:;\d+)?|7;[^\x07\x1b]*)(?:\x07|\x1b\\)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? "");
  return out;
}

describe("remote terminals", () => {
  test("off by default: not listed, and refused with a sentence", async () => {
    d = await startDevice();
    const link = await d.serve({ init: null });
    const init = (await link.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } })) as {
      _meta: { lembas: { capabilities: string[] } };
    };
    expect(init._meta.lembas.capabilities).not.toContain("terminal");
    const refused = await rpcError(open(link));
    expect(refused.message).toContain("remote terminals are off");
  });

  test("bash with integration: OSC 133 A B C D and OSC 7, no D for an empty line; an alias from the startup files works", async () => {
    const link = await terminalDevice();
    writeFileSync(join(d.box.env.HOME as string, ".bashrc"), "alias hello='echo hello-from-alias'\n");
    writeFileSync(join(d.box.env.HOME as string, ".bash_profile"), "[ -f ~/.bashrc ] && . ~/.bashrc\n");
    const opened = await open(link, { cwd: d.project });
    expect(opened).toMatchObject({ cwd: d.project, shell: "bash", integration: true });
    const term = screen(link, opened.terminalId);
    await term.waitFor("\x1b]133;B");
    type(link, opened.terminalId, "cd /tmp\n");
    await term.waitFor(/133;D;0/);
    type(link, opened.terminalId, "false\n");
    await term.waitFor(/133;D;1/);
    const before = marks(term.read()).filter((m) => m.startsWith("133;D")).length;
    type(link, opened.terminalId, "\n");
    type(link, opened.terminalId, "hello\n");
    await term.waitFor("hello-from-alias");
    await term.waitFor(/133;D;0[^]*133;B[^]*$/);
    const all = marks(term.read());
    expect(all).toContain("133;A");
    expect(all).toContain("133;C");
    expect(all.some((m) => /^7;file:\/\/[^/]*\/tmp$/.test(m))).toBe(true);
    // cd, false, (empty line: nothing), hello → three D marks after the first prompt's.
    expect(all.filter((m) => m.startsWith("133;D")).length - before).toBe(1);
  }, 30_000);

  test("resize is seen by stty size; a fifth terminal is refused; a bad size is -32602", async () => {
    const link = await terminalDevice({ integration: false });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await open(link)).terminalId);
    const fifth = await rpcError(open(link));
    expect(fifth.message).toContain("at most 4 terminals");
    const tiny = await rpcError(open(link, { cols: 10 }));
    expect(tiny).toMatchObject({ code: -32602, message: expect.stringContaining("20–500 columns by 5–300 rows") });
    const id = ids[0] as string;
    const term = screen(link, id);
    link.notify("_lembas/terminal/resize", { terminalId: id, cols: 132, rows: 40 });
    await Bun.sleep(100);
    type(link, id, "stty size\n");
    await term.waitFor("40 132");
  }, 30_000);

  test("close hangs up: the shell ends and its exit is sent", async () => {
    const link = await terminalDevice({ integration: false });
    const { terminalId } = await open(link);
    await screen(link, terminalId).waitFor(/[$#] $/);
    link.notify("_lembas/terminal/close", { terminalId });
    const exit = await link.waitForNotification("_lembas/terminal/exit");
    expect((exit.params as { terminalId: string }).terminalId).toBe(terminalId);
  }, 30_000);

  test("exit 3 is sent as code 3; integration off gives a plain login shell", async () => {
    const link = await terminalDevice({ integration: false });
    const { terminalId, integration } = await open(link);
    expect(integration).toBe(false);
    const term = screen(link, terminalId);
    type(link, terminalId, "shopt -q login_shell && echo LOGIN-SHELL\n");
    await term.waitFor("LOGIN-SHELL\r\n");
    expect(term.read()).not.toContain("\x1b]133;");
    type(link, terminalId, "exit 3\n");
    const exit = await link.waitForNotification("_lembas/terminal/exit");
    expect(exit.params).toEqual({ terminalId, code: 3 });
  }, 30_000);

  test("a dropped link closes every terminal", async () => {
    const link = await terminalDevice({ integration: false });
    const pids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { terminalId } = await open(link);
      const term = screen(link, terminalId);
      type(link, terminalId, "echo PID=$$\n");
      pids.push(Number(/PID=(\d+)/.exec(await term.waitFor(/PID=\d+/))?.[1]));
    }
    expect(new Set(pids).size).toBe(2);
    await link.close(1011);
    for (const pid of pids) await gone(pid);
  }, 30_000);

  async function gone(pid: number): Promise<void> {
    const end = Date.now() + 10_000;
    for (;;) {
      const alive = (() => {
        try {
          process.kill(pid, 0);
          return !require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8").includes("State:\tZ");
        } catch {
          return false;
        }
      })();
      if (!alive) return;
      if (Date.now() > end) throw new Error(`shell ${pid} still runs after the link dropped`);
      await Bun.sleep(50);
    }
  }

  test.if(zsh !== null)("zsh with integration marks its prompts too", async () => {
    const link = await terminalDevice({ shell: zsh ?? "zsh" });
    const { terminalId, shell } = await open(link);
    expect(shell).toBe("zsh");
    const term = screen(link, terminalId);
    await term.waitFor("\x1b]133;B");
    type(link, terminalId, "false\n");
    await term.waitFor(/133;D;1/);
  }, 30_000);

  test.if(fish !== null)("fish with integration marks its prompts too", async () => {
    const link = await terminalDevice({ shell: fish ?? "fish" });
    const { terminalId, shell } = await open(link);
    expect(shell).toBe("fish");
    const term = screen(link, terminalId);
    await term.waitFor("\x1b]133;B", 15_000);
    type(link, terminalId, "false\n");
    await term.waitFor(/133;D;1/);
  }, 30_000);
});

// 120 MB (160 MB in base64) keeps the client's pauses and the service's flow control at work for
// many rounds, at 60% of the CPU of the 200 MB it was. The service's RSS grew 44-46 MB with either,
// and as much with its flow control off (the client keeps up between pauses): what bounds a
// terminal's memory is test/terminal/flood.test.ts's.
test("a 120 MB flood read slowly by the client arrives whole, while the service's memory stays bounded", async () => {
  const link = await terminalDevice({ integration: false });
  const { terminalId } = await open(link, { cols: 200 });
  const N = 120_000_000;
  const expectedLength = Math.ceil(N / 3) * 4;
  let received = "";
  let seen = 0;
  let maxRss = 0;
  const pid = d.service?.pid ?? 0;
  const rss = () => {
    try {
      const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      return 0;
    }
  };
  const base = rss();
  type(link, terminalId, `printf 'ST''ART'; head -c ${N} /dev/zero | base64 -w0; printf 'E''ND'\n`);
  let paused = false;
  const started = Date.now();
  let flood = "";
  for (;;) {
    // A slow reader: stop reading the socket now and then, so the device has to hold back.
    if (!paused && Math.random() < 0.5) {
      link.pause();
      paused = true;
    } else if (paused) {
      link.resume();
      paused = false;
    }
    for (; seen < link.notifications.length; seen++) {
      const n = link.notifications[seen];
      if (n?.method === "_lembas/terminal/output") received += Buffer.from((n.params as { data: string }).data, "base64").toString("latin1");
    }
    // Keep only what we still need to look at; count the flood's A's as they pass.
    const start = received.indexOf("START");
    if (start !== -1) {
      const tail = received.slice(start + 5);
      const endAt = tail.indexOf("END");
      if (endAt !== -1) {
        flood += tail.slice(0, endAt);
        break;
      }
      // Keep the last two characters back: a frame may end inside the END marker.
      const keep = Math.max(0, tail.length - 2);
      flood += tail.slice(0, keep);
      received = `START${tail.slice(keep)}`;
    }
    link.notifications.splice(0, seen);
    seen = 0;
    maxRss = Math.max(maxRss, rss());
    if (Date.now() - started > 120_000) throw new Error(`the flood did not end: ${flood.length} of ${expectedLength}`);
    await Bun.sleep(paused ? 30 : 5);
  }
  if (paused) link.resume();
  expect(flood.length).toBe(expectedLength);
  expect(/^A+=*$/.test(flood)).toBe(true);
  expect(maxRss - base).toBeLessThan(256 * 1024 * 1024);
}, 150_000);
