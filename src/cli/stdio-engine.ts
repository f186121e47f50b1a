import { LEMBAS_PROTOCOL } from "../acp/agent.ts";
import type { lineTransport } from "../rpc/stdio.ts";
import { createContext } from "../app/context.ts";
import { preconnectModel } from "./preconnect.ts";

/** `lembas serve --stdio` on this process's own engine: until stdin ends or `stop`, then running turns are cancelled. */
export async function serveOwnEngine(transport: ReturnType<typeof lineTransport>, stop: Promise<void>): Promise<void> {
  const ctx = createContext();
  const config = ctx.config();
  // The connection to config.yaml's model is opened (Bun's HTTP thread started, the TCP and TLS
  // handshakes made) while the engine loads and the session is made: the first prompt's request
  // then finds it ready, as a one-shot's does (bench/START.md).
  preconnectModel(config.connections, config.model);
  const db = ctx.db();
  // Loaded once the config is read: the engine's modules are most of what this process loads.
  const { createEngine } = await import("../app/start-engine.ts");
  const { engine } = createEngine(ctx, "editor");
  // The models are listed and the tools' schemas prepared while the server's modules load: the
  // server answers nothing the editor has not waited on already.
  void engine.warm();
  const { serveAcp } = await import("../acp/server.ts");
  const { stream, finished } = transport;
  const server = serveAcp(stream, {
    engine,
    config,
    paths: ctx.paths,
    db,
    transport: "stdio",
    protocol: LEMBAS_PROTOCOL,
    limits: null,
    connection: null,
    maxMode: "auto",
  });
  await Promise.race([finished, stop, server.connection.closed]);
  // Requests already read are answered (a cancelled turn answers "cancelled"), then we leave.
  const closing = server.close();
  await Promise.race([transport.answered(), Bun.sleep(5000)]);
  await closing;
  transport.end();
  await engine.stop();
  db.close();
}
