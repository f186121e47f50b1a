/**
 * A command's words as tokens, as node:util's `parseArgs({ strict: false, allowPositionals: true,
 * tokens: true })` gives them, without loading node:util: in a fresh process that module costs
 * about a third of a compiled hello-world's start (bench/START.md). test/cli/arg-tokens.test.ts
 * holds the two alike over every shape of word.
 */

/** How an option is read: a string takes a value (the next word or `=VALUE`), a boolean none. */
export type TokenOption = { type: "string" | "boolean"; short?: string };

export type ArgToken =
  | { kind: "positional"; index: number; value: string }
  | { kind: "option-terminator"; index: number }
  | { kind: "option"; name: string; rawName: string; index: number; value: string | undefined; inlineValue: boolean | undefined };

/** `index` is the word's place in `args`; the letters of a group (`-ab`) each carry their group's. */
export function argTokens(args: readonly string[], options: Readonly<Record<string, TokenOption>>): ArgToken[] {
  const longFor = (short: string) => Object.keys(options).find((name) => options[name]?.short === short) ?? short;
  const takesValue = (name: string) => Object.hasOwn(options, name) && options[name]?.type === "string";
  const tokens: ArgToken[] = [];
  const left = [...args];
  let index = -1;
  let grouped = 0;
  while (left.length > 0) {
    const arg = left.shift() as string;
    const next = left[0];
    if (grouped > 0) grouped--;
    else index++;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index });
      for (const rest of left) tokens.push({ kind: "positional", index: ++index, value: rest });
      break;
    }
    const short = arg.length >= 2 && arg[0] === "-" && arg[1] !== "-";
    if (short && arg.length === 2) {
      const name = longFor(arg[1] as string);
      const value = takesValue(name) && next !== undefined ? (left.shift() as string) : undefined;
      tokens.push({ kind: "option", name, rawName: arg, index, value, inlineValue: value === undefined ? undefined : false });
      if (value !== undefined) index++;
      continue;
    }
    if (short && !takesValue(longFor(arg[1] as string))) {
      // A group of letters: each its own option; a letter that takes a value takes the rest of the word.
      const expanded: string[] = [];
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at] as string;
        if (!takesValue(longFor(letter)) || at === arg.length - 1) expanded.push(`-${letter}`);
        else {
          expanded.push(`-${letter}${arg.slice(at + 1)}`);
          break;
        }
      }
      left.unshift(...expanded);
      grouped = expanded.length;
      continue;
    }
    if (short) {
      const letter = arg[1] as string;
      tokens.push({ kind: "option", name: longFor(letter), rawName: `-${letter}`, index, value: arg.slice(2), inlineValue: true });
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const equals = arg.indexOf("=", 3);
      if (equals === -1) {
        const name = arg.slice(2);
        const value = takesValue(name) && next !== undefined ? (left.shift() as string) : undefined;
        tokens.push({ kind: "option", name, rawName: arg, index, value, inlineValue: value === undefined ? undefined : false });
        if (value !== undefined) index++;
      } else {
        const name = arg.slice(2, equals);
        tokens.push({ kind: "option", name, rawName: `--${name}`, index, value: arg.slice(equals + 1), inlineValue: true });
      }
      continue;
    }
    tokens.push({ kind: "positional", index, value: arg });
  }
  return tokens;
}
