import { describe, expect, test } from "bun:test";
import { libraryArguments, libraryTool, passagesOf, tokenScopes } from "../../src/library/account-contract.ts";

const object = (properties: Record<string, object>, required: string[] = []) => ({ type: "object" as const, properties, required });

describe("the contract with the instance for the account's library", () => {
  test("the token's scopes: token.scopes, else a top-level scopes; none listed is null", () => {
    expect(tokenScopes({ name: "x", token: { scopes: ["library", "chat"] } })).toEqual(["library", "chat"]);
    expect(tokenScopes({ name: "x", scopes: ["chat"] })).toEqual(["chat"]);
    expect(tokenScopes({ name: "x", version: "1" })).toBeNull();
    expect(tokenScopes({ token: { scopes: "library" } })).toBeNull();
    expect(tokenScopes("not an object")).toBeNull();
  });

  test("the library tool: a preferred name first, else one starting with library; its query and limit from the schema", () => {
    const tools = [
      { name: "library_admin", inputSchema: object({ action: { type: "string" } }, ["action"]) },
      { name: "search_library", inputSchema: object({ q: { type: "string" }, top_k: { type: "integer" } }) },
    ];
    expect(libraryTool(tools)).toEqual({ name: "search_library", queryArg: "q", limitArg: "top_k" });
    expect(libraryTool([tools[0]!])).toEqual({ name: "library_admin", queryArg: "action", limitArg: null });
    expect(libraryTool([{ name: "library_stats", inputSchema: object({}) }, { name: "echo", inputSchema: object({ query: { type: "string" } }) }])).toBeNull();
    expect(libraryArguments({ name: "t", queryArg: "q", limitArg: "top_k" }, "retry", 3)).toEqual({ q: "retry", top_k: 3 });
    expect(libraryArguments({ name: "t", queryArg: "query", limitArg: null }, "retry", 3)).toEqual({ query: "retry" });
  });

  test("passages from structured content, JSON text (results, bare arrays, other field names) or plain text", () => {
    const structured = passagesOf({ text: "2 found", structured: { passages: [{ text: "a", title: "A", url: "https://x/a", score: 0.9 }, { content: "b", path: "b.md", start_line: 3, end_line: 5 }] } }, "acct");
    expect(structured.map((p) => [p.citation, p.text, p.score])).toEqual([
      ["A — https://x/a", "a", 0.9],
      ["b.md:3-5", "b", 0.5],
    ]);
    expect(passagesOf({ text: JSON.stringify({ results: [{ snippet: "c", document: "Handbook" }] }) }, "acct")[0]?.citation).toBe("Handbook");
    expect(passagesOf({ text: JSON.stringify([{ text: "d" }]) }, "acct")[0]?.citation).toBe("the account's library on acct");
    expect(passagesOf({ text: "just words" }, "acct")).toMatchObject([{ text: "just words", citation: "the account's library on acct" }]);
    expect(passagesOf({ text: "" }, "acct")).toEqual([]);
    expect(() => passagesOf({ text: '{"answer": 42}' }, "acct")).toThrow("the library on acct answered something that is not passages");
  });
});
