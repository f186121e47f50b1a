/**
 * Which of the editor's files a connection may use is read from initialize's clientCapabilities by
 * hand (src/acp/editor-files.ts), as every connection reads it at its start and zod's first parse
 * compiles a schema: it must read every value as the schema it replaced does. Every combination of
 * the candidates below, the schema's answer against the hand's.
 */
import { expect, test } from "bun:test";
import { z } from "zod";
import { editorFs } from "../../src/acp/editor-files.ts";

/** The schema the check is held to (loose objects: keys of their own are let through). */
const Capabilities = z.looseObject({
  fs: z.looseObject({ readTextFile: z.boolean().nullish(), writeTextFile: z.boolean().nullish() }).nullish(),
});

function bySchema(capabilities: unknown): { read: boolean; write: boolean } {
  const parsed = Capabilities.safeParse(capabilities);
  const fs = parsed.success ? parsed.data.fs : null;
  return { read: fs?.readTextFile === true, write: fs?.writeTextFile === true };
}

const FLAGS: unknown[] = [undefined, null, true, false, "true", 1, 0, {}, []];
const ABSENT = Symbol("absent");

function fsValues(): unknown[] {
  const out: unknown[] = [undefined, null, true, 1, "fs", [], [true], {}, { terminal: true }];
  for (const read of [ABSENT, ...FLAGS]) {
    for (const write of [ABSENT, ...FLAGS]) {
      const fs: Record<string, unknown> = { other: 1 };
      if (read !== ABSENT) fs.readTextFile = read;
      if (write !== ABSENT) fs.writeTextFile = write;
      out.push(fs);
    }
  }
  return out;
}

test("the editor's files are read from clientCapabilities as the schema reads them, for every combination", () => {
  const values: unknown[] = [undefined, null, 0, "caps", [], [{ fs: { readTextFile: true } }]];
  for (const fs of fsValues()) {
    values.push({ fs, terminal: true });
    values.push(fs === undefined ? {} : { fs });
  }
  let offered = 0;
  for (const capabilities of values) {
    const { read, write } = editorFs(capabilities);
    expect([capabilities, { read, write }]).toEqual([capabilities, bySchema(capabilities)]);
    if (read || write) offered++;
  }
  // The combinations include ones that offer files (else the check would hold for a hand that offers none).
  expect(offered).toBeGreaterThan(10);
});
