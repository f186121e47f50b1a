import { describe, expect, test } from "bun:test";
import { Connection } from "../../src/config/schema.ts";
import { modelApi } from "../../src/model/apis.ts";
import { endpointFromConnection, endpointFromLogin, endpointHeaders } from "../../src/model/endpoint.ts";

const endpointOf = (fields: object) => endpointFromConnection("c", Connection.parse({ api_key: "sk-k", ...fields }), {});

describe("a connection's API", () => {
  test("config.yaml's api wins over the host", () => {
    expect(modelApi(endpointOf({ base_url: "https://api.anthropic.com/v1", api: "chat" }), "claude-sonnet-4-5")).toBe("chat");
    expect(modelApi(endpointOf({ base_url: "http://127.0.0.1:8080/v1", api: "messages" }), "m")).toBe("messages");
    expect(modelApi(endpointOf({ base_url: "http://127.0.0.1:8080/v1", api: "responses" }), "m")).toBe("responses");
  });

  test("api.anthropic.com speaks Messages; api.openai.com Responses for the models served only there, chat for the rest", () => {
    expect(modelApi(endpointOf({ base_url: "https://api.anthropic.com/v1" }), "claude-opus-4-1")).toBe("messages");
    const openai = endpointOf({ base_url: "https://api.openai.com/v1" });
    for (const id of ["gpt-5-codex", "codex-mini-latest", "o3-pro", "gpt-5-pro-2025-10-06", "o3-deep-research", "computer-use-preview"]) expect(modelApi(openai, id)).toBe("responses");
    for (const id of ["gpt-4.1", "gpt-5", "o4-mini", "gpt-4o-mini"]) expect(modelApi(openai, id)).toBe("chat");
  });

  test("any other host, and a login's instance, speak chat completions", () => {
    expect(modelApi(endpointOf({ base_url: "https://openrouter.ai/api/v1" }), "anthropic/claude-sonnet-4.5")).toBe("chat");
    expect(modelApi(endpointFromLogin({ name: "l", url: "https://api.anthropic.com", token: "t" }), "claude-sonnet-4-5")).toBe("chat");
  });

  test("a Messages connection sends its key as x-api-key with anthropic-version, config.yaml's headers still merged", () => {
    const headers = endpointHeaders(endpointOf({ base_url: "https://api.anthropic.com/v1", headers: { "anthropic-beta": "x" } }));
    expect(headers).toEqual({ "x-api-key": "sk-k", "anthropic-version": "2023-06-01", "anthropic-beta": "x" });
  });

  test("an api config.yaml does not know is refused with the names it takes", () => {
    const parsed = Connection.safeParse({ base_url: "http://x/v1", api: "completions" });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("messages");
  });
});
