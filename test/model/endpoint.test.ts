import { describe, expect, test } from "bun:test";
import { Connection } from "../../src/config/schema.ts";
import { endpointFromConnection, endpointFromLogin } from "../../src/model/endpoint.ts";
import { httpError } from "../../src/model/errors.ts";

const conn = (fields: object) => Connection.parse({ base_url: "http://127.0.0.1:11434/v1/", ...fields });

describe("endpointFromConnection", () => {
  test("api_key wins; the base URL loses its trailing slash; context_length is kept", () => {
    const endpoint = endpointFromConnection("local", conn({ api_key: "k1", api_key_env: "KEY", context_length: 8192 }), { KEY: "k2" });
    expect(endpoint).toMatchObject({ name: "local", baseUrl: "http://127.0.0.1:11434/v1", apiKey: "k1", contextLength: 8192 });
  });

  test("api_key_env is read from the environment", () => {
    expect(endpointFromConnection("local", conn({ api_key_env: "KEY" }), { KEY: "k2" }).apiKey).toBe("k2");
  });

  test("neither, or an unset variable: no key, and an auth error says what to set", () => {
    expect(endpointFromConnection("local", conn({}), {}).apiKey).toBeNull();
    const unset = endpointFromConnection("local", conn({ api_key_env: "LOCAL_KEY" }), {});
    expect(unset.apiKey).toBeNull();
    expect(httpError(unset, 401, "").message).toBe(
      'the model server at http://127.0.0.1:11434/v1 asks for a key (HTTP 401); LOCAL_KEY (api_key_env of connection "local") is not set in the environment',
    );
  });
});

describe("endpointFromLogin", () => {
  test("the instance's /v1 with the device token", () => {
    const endpoint = endpointFromLogin({ name: "lembas", url: "https://lembas.example/", token: "dev_tok_secret" });
    expect(endpoint).toMatchObject({ name: "lembas", baseUrl: "https://lembas.example/v1", apiKey: "dev_tok_secret" });
  });

  test("a refused token is never in the sentence, even when the server repeats it", () => {
    const endpoint = endpointFromLogin({ name: "lembas", url: "https://lembas.example", token: "dev_tok_secret" });
    const error = httpError(endpoint, 403, '{"detail":"token dev_tok_secret is revoked"}');
    expect(error.kind).toBe("auth");
    expect(error.message).not.toContain("dev_tok_secret");
    expect(error.message).toBe(
      'the model server at https://lembas.example/v1 refused the key (HTTP 403: token [key] is revoked); the device token of login "lembas" was refused: log in to https://lembas.example again',
    );
  });

  test("credentials in a URL are not shown", () => {
    const error = httpError({ name: "x", baseUrl: "https://user:pw@host.example/v1?key=abc", apiKey: null }, 500, "");
    expect(error.message).toBe("the model server at https://host.example/v1 failed (HTTP 500)");
  });
});
