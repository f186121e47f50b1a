import { afterEach, expect, test } from "bun:test";
import { AccountLibrary } from "../../src/library/account.ts";
import { libraryMcp } from "../support/library-mcp.ts";

const PASSAGES = [{ text: "A request that fails with 503 is retried three times.", title: "Retry policy", url: "https://docs.example/retry" }];

const servers: { stop(force?: boolean): unknown }[] = [];
const libraries: AccountLibrary[] = [];
afterEach(async () => {
  await Promise.all(libraries.splice(0).map((l) => l.stop()));
  for (const s of servers.splice(0)) s.stop(true);
});

test("two searches that share the connection being made: the first one cancelled fails alone, and the other gets its passages", async () => {
  const mcp = libraryMcp(PASSAGES);
  // A /mcp that holds its first request until the test lets it go, so both searches wait on the one connection.
  let first = true;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      if (first) {
        first = false;
        await held;
      }
      return mcp.handler(request);
    },
  });
  servers.push(server);
  const library = new AccountLibrary({ name: "acct", url: `http://127.0.0.1:${server.port}`, token: "tok" });
  libraries.push(library);

  const cancel = new AbortController();
  const cancelled = library.search("retries", 1, cancel.signal);
  const other = library.search("retries", 1, new AbortController().signal);
  await Bun.sleep(50);
  cancel.abort();
  // At once, while the connection is still held: a search that waited for it would time the test out.
  await expect(cancelled).rejects.toThrow("the search was cancelled");
  release();
  expect((await other).map((p) => p.text)).toEqual([PASSAGES[0]?.text ?? ""]);
}, 30_000);
