import { LEMBAS_PROTOCOL } from "../acp/agent.ts";
import { serveAcp } from "../acp/server.ts";
import { createEngine } from "../engine/create.ts";
import { guardStdout, lineTransport } from "../rpc/stdio.ts";
import { createContext } from "./context.ts";
import { report } from "./report.ts";

/**
 * `lembas serve --stdio` as editors start it, straight from the entry point: it needs no argument
 * parser, and an editor waits for its initialize answer.
 */
export async function runStdio(): Promise<void> {
  try {
    await serveStdio();
  } catch (error) {
    process.exit(report(error));
  }
}

/** `lembas serve --stdio`: until stdin ends (or SIGTERM), then running turns are cancelled and it exits 0. */
export async function serveStdio(): Promise<void> {
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
