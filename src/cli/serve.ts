import { defineCommand } from "citty";
import { LEMBAS_PROTOCOL } from "../acp/agent.ts";
import { serveAcp } from "../acp/server.ts";
import { createEngine } from "../engine/create.ts";
import { guardStdout, lineTransport } from "../rpc/stdio.ts";
import { createContext } from "./context.ts";

export default defineCommand({
  meta: { name: "serve", description: "Run the device service (links to your instances), or serve ACP to an editor with --stdio" },
  args: {
    stdio: { type: "boolean", description: "speak ACP on stdin/stdout, one JSON-RPC message a line (for Zed and other ACP clients)" },
  },
  async run({ args }) {
    if (args.stdio) return serveStdio();
    const { runService } = await import("../service/daemon.ts");
    await runService(createContext());
    process.exit(0);
  },
});

/** `lembas serve --stdio`: until stdin ends (or SIGTERM), then running turns are cancelled and it exits 0. */
async function serveStdio(): Promise<void> {
  const write = guardStdout();
  process.on("unhandledRejection", (reason) => console.error(`lembas: unexpected error (serving goes on): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  const ctx = createContext();
  const config = ctx.config();
  const { engine } = createEngine(ctx, "editor");
  // While the editor sends initialize, list the models and prepare the tools' schemas.
  void engine.warm();
  const transport = lineTransport(Bun.stdin.stream(), write);
  const { stream, finished } = transport;
  const server = serveAcp(stream, {
    engine,
    config,
    paths: ctx.paths,
    db: ctx.db(),
    transport: "stdio",
    protocol: LEMBAS_PROTOCOL,
    limits: null,
    connection: null,
    maxMode: "auto",
  });
  const stop = new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  await Promise.race([finished, stop, server.connection.closed]);
  // Requests already read are answered (a cancelled turn answers "cancelled"), then we leave.
  const closing = server.close();
  await Promise.race([transport.answered(), Bun.sleep(5000)]);
  await closing;
  transport.end();
  await engine.stop();
  ctx.db().close();
  process.exit(0);
}
