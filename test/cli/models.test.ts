import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { afterHeader, projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

/**
 * The scripted model behind a front that can make its /v1/models slow or failing, and refuse
 * tools the way Ollama does for a model without tool support.
 */
type Front = { url: string; modelsAt: number[]; modelsDelayMs: number; modelsFail: boolean; failMessage: string; refuseTools: boolean; close(): Promise<void> };

function front(model: ScriptedModel): Front {
  const state: Front = { url: "", modelsAt: [], modelsDelayMs: 0, modelsFail: false, failMessage: "listing is broken today", refuseTools: false, close: async () => {} };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path === "/v1/models") {
        state.modelsAt.push(Date.now());
        if (state.modelsFail) return Response.json({ error: { message: state.failMessage } }, { status: 500 });
        if (state.modelsDelayMs > 0) await held(state.modelsDelayMs, req.signal);
      }
      if (req.method === "POST" && path === "/v1/chat/completions" && state.refuseTools) {
        const body = (await req.clone().json()) as { tools?: unknown[] };
        // Ollama's answer for a model without tool support (https://github.com/ollama/ollama/issues/7865 and others)
        if (body.tools?.length) return Response.json({ error: { message: "registry.ollama.ai/library/gemma2:2b does not support tools" } }, { status: 400 });
      }
      return model.handle(req);
    },
  });
  state.url = `http://127.0.0.1:${server.port}/v1`;
  state.close = () => server.stop(true);
  return state;
}

/** Waits `ms`, or less if the client goes away (so that no listing outlives its test). */
const held = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

let model: ScriptedModel;
let server: Front;
let box: Sandbox & { project: string };
beforeEach(async () => {
  model = await startModel({ models: [{ id: "test-model" }, { id: "other", context_length: 8192 }] });
  server = front(model);
  box = projectSandbox(server.url);
});
afterEach(async () => {
  await server.close();
  await model.close();
  box.cleanup();
});

const dbFile = () => join(box.stateDir, "lembas.db");

describe("lembas models", () => {
  test("names each model's window and where it came from; a listing that fails keeps the last good one, and says so", async () => {
    const first = await runLembas(box, ["models"]);
    expect(first.stderr).toBe("");
    expect(first.stdout.split("\n")).toEqual([
      "* test/test-model  chat  assumed 32k: set context under the connection",
      "  test/other       chat  8k from /v1/models context_length",
      "",
    ]);
    server.modelsFail = true;
    const kept = await runLembas(box, ["models"]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toBe(first.stdout);
    expect(kept.stderr).toMatch(
      /^lembas: connection test could not list its models now \(the model server at http:\/\/127\.0\.0\.1:\d+\/v1 failed \(HTTP 500: listing is broken today\)\): showing the 2 it listed at \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$/,
    );
  });

  test("a model id or an error carrying terminal control never reaches the terminal: the entry is skipped, the error shown as text", async () => {
    model.setModels([{ id: "test-model" }, { id: "evil\x1b]0;owned\x07" }, { id: "\u202egnp.exe" }]);
    const listed = await runLembas(box, ["models"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe("* test/test-model  chat  assumed 32k: set context under the connection\n");
    server.modelsFail = true;
    server.failMessage = "broken\x1b]0;owned\x07\u202etoday";
    const failing = await runLembas(box, ["models"]);
    expect(failing.stderr).toContain("(HTTP 500: brokentoday)");
    expect(failing.stdout + failing.stderr).not.toMatch(/[\x1b\x07\u202e]/);
  });

  test("a connection it cannot reach is named, not left out; with no model reached it exits 1", async () => {
    const file = join(box.configDir, "config.yaml");
    await Bun.write(file, `${await Bun.file(file).text()}  gone:\n    base_url: http://127.0.0.1:9/v1\n`);
    const both = await runLembas(box, ["models"]);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain("test/test-model");
    expect(both.stderr).toBe("lembas: connection gone: the model server at http://127.0.0.1:9/v1 did not answer: connection refused\n");
    await Bun.write(file, "connections:\n  gone:\n    base_url: http://127.0.0.1:9/v1\n");
    const none = await runLembas(box, ["models"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr.trim().split("\n")).toEqual([
      "lembas: connection gone: the model server at http://127.0.0.1:9/v1 did not answer: connection refused",
      "lembas: no models: the connection above could not be reached",
    ]);
  });

  test("with no connection, no login and no local server, the hint is lines to paste", async () => {
    await Bun.write(join(box.configDir, "config.yaml"), "");
    const result = await runLembas(box, ["models"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
    expect(result.stderr.split("\n")).toEqual([
      "lembas: no model to talk to: add a connection and choose one of its models (lembas models lists them), or log in to a LLeMbas instance:",
      "  lembas config set connections.local.base_url http://127.0.0.1:11434/v1",
      "  lembas config set model local/qwen2.5-coder",
      "  lembas login https://lembas.example.org",
      "",
    ]);
    // Each line does what it says, pasted as it is.
    for (const line of result.stderr.split("\n").slice(1, 3)) {
      const words = line.trim().split(" ").slice(1);
      expect((await runLembas(box, words)).code).toBe(0);
    }
    expect((await runLembas(box, ["config", "get", "model"])).stdout).toBe("local/qwen2.5-coder\n");
  });

  test("a connection's context overrides what its server said", async () => {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${server.url}\n    context: 65536\n`);
    const result = await runLembas(box, ["models"]);
    expect(result.stdout).toContain("* test/test-model  chat  64k from context in config.yaml\n");
    expect(result.stdout).toContain("  test/other       chat  64k from context in config.yaml\n");
  });
});

describe("a turn never waits on /v1/models", () => {
  test("with a kept listing, the first chat request goes out at once while a slow listing is refreshed in the background", async () => {
    expect((await runLembas(box, ["models"])).code).toBe(0);
    // Make the kept listing old, so that this run refreshes it, and the server list only after two
    // minutes (and the listing's 5 s limit ten minutes): a run that waited for the listing (before its
    // chat request or before it ends) would be killed at runLembas's 20 s, without its answer.
    const raw = new Database(dbFile());
    raw.query("UPDATE model_listings SET listed_at = 0").run();
    raw.close();
    server.modelsDelayMs = 120_000;
    model.push(step({ text: "hi there" }));
    const result = await runLembas(box, ["run", "say hi"], { cwd: box.project, env: { LEMBAS_TEST_LISTING_MS: "600000" } });
    // The run ends with its answer: it does not wait out the slow listing (it is given up, not kept).
    // Nothing said but the session's closing line.
    expect(afterHeader(result.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(result).toMatchObject({ code: 0, stdout: "hi there\n" });
    const chat = model.requests.find((r) => isStep(r.body));
    const refresh = server.modelsAt[1];
    if (!chat || refresh === undefined) throw new Error("the run made no chat request, or did not refresh the listing");
    // A listing that ends within the run's grace is kept: the run after that does not ask again.
    server.modelsDelayMs = 100;
    model.push(step({ text: "again" }));
    expect((await runLembas(box, ["run", "again"], { cwd: box.project })).stdout).toBe("again\n");
    expect(server.modelsAt).toHaveLength(3);
    model.push(step({ text: "once more" }));
    expect((await runLembas(box, ["run", "once more"], { cwd: box.project })).stdout).toBe("once more\n");
    expect(server.modelsAt).toHaveLength(3);
  }, 30_000);

  test("a listing that fails: the turn runs from the last good one", async () => {
    expect((await runLembas(box, ["models"])).code).toBe(0);
    const raw = new Database(dbFile());
    raw.query("UPDATE model_listings SET listed_at = 0").run();
    raw.close();
    server.modelsFail = true;
    model.push(step({ text: "still here" }));
    const result = await runLembas(box, ["run", "say hi"], { cwd: box.project });
    expect(result).toMatchObject({ code: 0, stdout: "still here\n" });
    expect(afterHeader(result.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
  }, 30_000);

  test("a model the kept listing does not know waits for the fresh list once, then is found", async () => {
    expect((await runLembas(box, ["models"])).code).toBe(0);
    model.setModels([{ id: "test-model" }, { id: "other", context_length: 8192 }, { id: "pulled-since" }]);
    model.push(step({ text: "new one" }));
    const result = await runLembas(box, ["run", "--model", "test/pulled-since", "hi"], { cwd: box.project });
    expect(result).toMatchObject({ code: 0, stdout: "new one\n" });
    expect(model.requests.find((r) => isStep(r.body))?.body.model).toBe("pulled-since");
  }, 30_000);
});

describe("lembas doctor --probe", () => {
  test("names the server family and each model's window, and says tools work after a one-token request with one tool", async () => {
    const plain = await runLembas(box, ["doctor"]);
    expect(model.requests).toHaveLength(0);
    const lines = plain.stdout.split("\n");
    expect(lines).toContain(`ok   model connection test ${server.url}: an OpenAI-compatible server, 2 chat models; speaks chat completions`);
    expect(lines).toContain("ok   model test/test-model: window assumed 32k: set context under the connection");
    expect(lines).toContain("ok   model test/other: window 8k from /v1/models context_length");

    const probed = await runLembas(box, ["doctor", "--probe"]);
    expect(probed.stdout.split("\n")).toContain("ok   model connection test: tools: yes (test-model took a request with a tool in chat completions)");
    const [request] = model.requests;
    expect(request?.body).toMatchObject({ model: "test-model", max_tokens: 1, stream: false, tool_choice: "auto" });
    expect(request?.body.tools).toHaveLength(1);
  });

  test("a server that refuses tools: tools: no, with the server's sentence and what to set", async () => {
    server.refuseTools = true;
    const result = await runLembas(box, ["doctor", "--probe"]);
    expect(result.code).toBe(1);
    expect(result.stdout.split("\n")).toContain(
      "fix  model connection test: tools: no (test-model: registry.ollama.ai/library/gemma2:2b does not support tools) — set supports_tools: false under the connection, so its turns are plain chat, or serve the model with tool support",
    );
  });
});
