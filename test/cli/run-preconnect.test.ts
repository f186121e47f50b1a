/**
 * `lembas run` opens its model's connection while the session is made, not once the first request
 * is built: the TCP (and on https the TLS) handshake is off the path to the first request. Seen in
 * order, not in time: the project's `git status` (which the first request waits for) is a script
 * that answers only once the model's server has been connected to, through a relay that notes it.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket, TCPSocketListener } from "bun";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, projectSandbox, runInProject } from "../support/run.ts";

type Pipe = { peer: Socket<Pipe> | null; pending: Uint8Array[] };

let model: ScriptedModel;
let box: ProjectSandbox;
let relay: TCPSocketListener<Pipe>;
let connected: string;

beforeEach(async () => {
  model = await startModel();
  const upstream = new URL(model.url);
  box = projectSandbox(model.url);
  connected = join(box.dir, "connected");
  // Every connection to the relay is noted in a file, then carried to the scripted model.
  relay = Bun.listen<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        writeFileSync(connected, "yes");
        client.data = { peer: null, pending: [] };
        void Bun.connect<Pipe>({
          hostname: upstream.hostname,
          port: Number(upstream.port),
          socket: {
            open(server) {
              server.data = { peer: client, pending: [] };
              client.data.peer = server;
              for (const chunk of client.data.pending.splice(0)) server.write(chunk);
            },
            data: (server, chunk) => void server.data.peer?.write(chunk),
            close: (server) => void server.data.peer?.end(),
          },
        });
      },
      data(client, chunk) {
        if (client.data.peer) client.data.peer.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close: (client) => void client.data.peer?.end(),
    },
  });
  const base = `http://127.0.0.1:${relay.port}/v1`;
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${base}\n`);
  // A git repository whose status comes from a git that waits (2 s at most; lembas waits 3) for the connection.
  mkdirSync(join(box.project, ".git"));
  const bin = join(box.dir, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\ncase " $* " in *" status "*) ;; *) exit 1 ;; esac\nfor i in $(seq 1 \${GIT_WAIT_ROUNDS:-40}); do [ -e '${connected}' ] && { echo '## main (connected first)'; exit 0; }; sleep 0.05; done\necho '## main (not connected)'\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  box.env.PATH = `${bin}:${box.env.PATH}`;
});

afterEach(async () => {
  relay.stop(true);
  await model.close();
  box.cleanup();
});

/** A first run lists the server's models and keeps the list: the run after it makes no request before its first chat request. */
async function runAfterAListing(env: Record<string, string> = {}): Promise<string> {
  model.push(step({ text: "hello" }), step({ text: "hello" }));
  expect(await runInProject(box, ["hi"])).toMatchObject({ code: 0, stdout: "hello\n" });
  rmSync(connected);
  const before = model.requests.length;
  const result = await runInProject(box, ["--model", "test/test-model", "hi"], { env });
  expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
  return JSON.stringify(model.requests[before]?.body);
}

test("a new session's model is connected to before its first request, which waits on git status", async () => {
  expect(await runAfterAListing()).toContain("(connected first)");
});

test("a model reached through a proxy is not connected to ahead: the request goes to the proxy", async () => {
  // The relay stands for the proxy too: the request reaches the model through it, once git gave up waiting.
  // git waits 0.8 s for a connection that should never come (2 s, with lembas's 3 s bound on git status, missed it at load 30).
  expect(await runAfterAListing({ HTTP_PROXY: `http://127.0.0.1:${relay.port}`, GIT_WAIT_ROUNDS: "16" })).toContain("(not connected)");
});
