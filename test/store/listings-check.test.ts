/**
 * A kept listing's models are read by hand (src/store/listings.ts keptModels), as every start reads
 * them and zod's first parse compiles a schema: the hand must answer what the schema does, the same
 * models with the same keys in the same order, and nothing where it refuses them. Each key of a
 * model is given each candidate in turn, in lists of one and of two.
 */
import { expect, test } from "bun:test";
import { keptModels, Models } from "../../src/store/listings.ts";

const ABSENT = Symbol("absent");
const CANDIDATES: Record<string, unknown[]> = {
  id: ["qwen", "", 7, null],
  provider: ["openai", "", 1, null],
  contextLength: [8192, 0, -1, 1.5, 2 ** 60, "8192", null],
  contextFrom: ["/props", 3, null],
  trainedContext: [32768, 0, 1.5, "x", null],
  vision: [true, false, "yes", null],
  tools: [true, false, 0, null],
  family: ["llama", 2, null],
};

function bySchema(json: unknown): unknown {
  const parsed = Models().safeParse(json);
  return parsed.success ? parsed.data : null;
}

function models(): unknown[] {
  const base = { id: "m", provider: "p", contextLength: 4096, family: "f" };
  const out: unknown[] = [base, { id: "only" }, { ...base, extra: "dropped", nested: { a: 1 } }, null, "m", [], 3];
  for (const [key, values] of Object.entries(CANDIDATES)) {
    for (const value of [ABSENT, ...values]) {
      const model: Record<string, unknown> = { ...base };
      if (value === ABSENT) delete model[key];
      else model[key] = value;
      out.push(model);
    }
  }
  return out;
}

test("a kept listing's models read by hand are the schema's, key order and all, and nothing where it refuses them", () => {
  const all = models();
  const lists: unknown[] = [null, "[]", {}, [], 5];
  for (const one of all) {
    lists.push([one]);
    lists.push([{ id: "first", tools: true }, one]);
  }
  let read = 0;
  for (const json of lists) {
    const hand = keptModels(json);
    expect([json, JSON.stringify(hand)]).toEqual([json, JSON.stringify(bySchema(json))]);
    expect([json, hand]).toEqual([json, bySchema(json)]);
    if (hand) read++;
  }
  // Both good and bad lists were given.
  expect(read).toBeGreaterThan(30);
  expect(lists.length - read).toBeGreaterThan(30);
});
