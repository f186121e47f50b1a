import { expect, test } from "bun:test";
import { nulSeparated } from "../../src/project/list-files.ts";

// ripgrep's output reaches us in chunks cut anywhere: inside a path, right before or after its
// NUL, and inside a multi-byte character of a name.
const PATHS = ["README.md", "src/ü.ts", "docs/日本語/読む.md", "a", "emoji/😀 face.txt", "x/y/z.rs", "Ärger/Öl", "last.txt"];
const BYTES = new TextEncoder().encode(PATHS.map((path) => `${path}\0`).join(""));

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.slice(at, cut);
    at = cut;
  }
}

async function listed(chunks: AsyncIterable<Uint8Array>): Promise<string[]> {
  const paths: string[] = [];
  for await (const batch of nulSeparated(chunks)) paths.push(...batch);
  return paths;
}

test("every path comes out whole and in order wherever one cut splits the output", async () => {
  for (let cut = 0; cut <= BYTES.length; cut++) expect(await listed(chunked(BYTES, [cut]))).toEqual(PATHS);
});

test("every path comes out whole and in order from chunks of one, two and three bytes", async () => {
  for (const size of [1, 2, 3]) {
    const cuts = Array.from({ length: Math.floor(BYTES.length / size) }, (_, i) => (i + 1) * size);
    expect(await listed(chunked(BYTES, cuts))).toEqual(PATHS);
  }
});

test("a last path without its NUL is given at the end, and an empty output gives nothing", async () => {
  const unterminated = BYTES.slice(0, BYTES.length - 1);
  expect(await listed(chunked(unterminated, [unterminated.length - 3]))).toEqual(PATHS);
  expect(await listed(chunked(new Uint8Array(0), []))).toEqual([]);
});
