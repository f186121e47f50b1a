import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { z } from "zod";
import type { Config } from "../config/schema.ts";
import { errorMessage } from "../errors.ts";
import { acp } from "../rpc/agent.ts";
import { openTerminal, type Terminal } from "../terminal/terminal.ts";
import { insideRoots, rootsOf } from "./places.ts";

/** At most this many terminals on one link. */
export const MAX_TERMINALS = 4;

const Open = z.object({
  cwd: z.string().optional(),
  cols: z.number().int().optional(),
  rows: z.number().int().optional(),
});
const Input = z.object({ terminalId: z.string(), data: z.string() });
const Resize = z.object({ terminalId: z.string(), cols: z.number().int(), rows: z.number().int() });
const Close = z.object({ terminalId: z.string() });

const invalid = (sentence: string) => new acp.RequestError(-32602, `Invalid params: ${sentence}`);

function checkSize(cols: number, rows: number): void {
  if (cols < 20 || cols > 500 || rows < 5 || rows > 300) throw invalid(`a terminal is 20–500 columns by 5–300 rows, not ${cols} × ${rows}`);
}

/**
 * _lembas/terminal/* on one link: real login shells in PTYs (src/terminal), at most four, their
 * output base64-encoded into _lembas/terminal/output and flow-controlled on the link's buffered
 * amount; every terminal closes with the link.
 */
export function registerTerminals(app: acp.AgentApp, opts: { config: Config; bufferedAmount(): number }): { closeAll(): void } {
  const terminals = new Map<string, Terminal>();
  let next = 0;
  const off = () => {
    if (!opts.config.remote.terminal) throw new acp.RequestError(-32601, "remote terminals are off on this device (remote.terminal: true in config.yaml turns them on)");
  };

  app.onRequest("_lembas/terminal/open", Open, ({ params, client }) => {
    off();
    const roots = rootsOf(opts.config.remote);
    const cwd = params.cwd ?? roots[0];
    if (!cwd) throw invalid("the device has no remote roots to open a terminal in");
    if (!isAbsolute(cwd)) throw invalid(`cwd must be absolute, not ${JSON.stringify(cwd)}`);
    if (!insideRoots(cwd, opts.config.remote)) throw invalid(`${cwd} is outside the device's remote roots (${opts.config.remote.roots.join(", ")})`);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`${cwd} is not an existing directory`);
    const cols = params.cols ?? 80;
    const rows = params.rows ?? 24;
    checkSize(cols, rows);
    if (terminals.size >= MAX_TERMINALS) throw invalid(`at most ${MAX_TERMINALS} terminals are open on one link: close one first`);
    const terminalId = `term_${++next}_${Date.now().toString(36)}`;
    let terminal: Terminal;
    try {
      terminal = openTerminal({
        cwd,
        cols,
        rows,
        integration: opts.config.remote.terminal_integration,
        sink: {
          send: (frame) => void client.notify("_lembas/terminal/output", { terminalId, data: Buffer.from(frame).toString("base64") }).catch(() => {}),
          bufferedAmount: opts.bufferedAmount,
        },
      });
    } catch (error) {
      throw new acp.RequestError(-32603, `the shell could not start: ${errorMessage(error)}`);
    }
    terminals.set(terminalId, terminal);
    void terminal.exited.then((code) => {
      terminals.delete(terminalId);
      void client.notify("_lembas/terminal/exit", { terminalId, code }).catch(() => {});
    });
    return { terminalId, cwd, cols, rows, shell: terminal.shell, integration: terminal.integration };
  });

  app.onNotification("_lembas/terminal/input", Input, ({ params }) => {
    terminals.get(params.terminalId)?.input(Buffer.from(params.data, "base64"));
  });
  app.onNotification("_lembas/terminal/resize", Resize, ({ params }) => {
    if (params.cols < 20 || params.cols > 500 || params.rows < 5 || params.rows > 300) return;
    terminals.get(params.terminalId)?.resize(params.cols, params.rows);
  });
  app.onNotification("_lembas/terminal/close", Close, ({ params }) => {
    terminals.get(params.terminalId)?.close();
  });

  return {
    closeAll() {
      for (const terminal of terminals.values()) terminal.dispose();
      terminals.clear();
    },
  };
}
