/**
 * The command line's tokens (src/cli/arg-tokens.ts) are node:util's parseArgs tokens, which the
 * commands were first read with: every sequence of up to three words of every shape (short and
 * long options, groups of letters, inline values, values that start with a dash, `--`, `-`), for
 * options that take values and options that do not, gives the same tokens from both.
 */
import { expect, test } from "bun:test";
import { parseArgs } from "node:util";
import { argTokens, type TokenOption } from "../../src/cli/arg-tokens.ts";

const WORDS = ["hi", "hi there", "-", "--", "---", "-=", "=", "", "-5", "-y", "-m", "-a", "-z", "-ya", "-ym", "-my", "-mx", "-az", "-yam", "--yes", "--yes=1", "--model", "--model=x", "--model=", "--model=-q", "--cwd", "--nope", "--nope=2", "--=x"];

const OPTION_SETS: Record<string, TokenOption>[] = [
  { yes: { type: "boolean", short: "y" }, model: { type: "string", short: "m" }, all: { type: "boolean", short: "a" }, cwd: { type: "string" } },
  { model: { type: "string" }, yes: { type: "boolean" } },
  {},
];

function* sequences(length: number): Generator<string[]> {
  if (length === 0) {
    yield [];
    return;
  }
  for (const head of sequences(length - 1)) for (const word of WORDS) yield [...head, word];
}

test("every sequence of up to three words gives node:util's tokens", () => {
  let compared = 0;
  const differing: string[] = [];
  for (const options of OPTION_SETS) {
    for (let length = 0; length <= 3; length++) {
      for (const args of sequences(length)) {
        const expected = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true }).tokens;
        const got = argTokens(args, options);
        compared++;
        if (!Bun.deepEquals(got, expected) && differing.length < 5) differing.push(`${JSON.stringify(args)} with ${JSON.stringify(options)}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
      }
    }
  }
  expect(differing).toEqual([]);
  expect(compared).toBeGreaterThan(70_000);
});
