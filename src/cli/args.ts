import { UserError } from "../errors.ts";
import { didYouMean } from "../suggest.ts";
import { argTokens, type TokenOption } from "./arg-tokens.ts";

export type PositionalArg = {
  type: "positional";
  description: string;
  required?: boolean;
  /** The last positional may take every word left, joined by spaces (a prompt typed unquoted). */
  rest?: boolean;
  /** The last positional may take every word left as a list (PATH…); required: at least one. */
  many?: boolean;
};
export type StringArg = { type: "string"; description: string; alias?: string; default?: string; valueHint?: string };
export type BooleanArg = { type: "boolean"; description: string; alias?: string };
export type ArgDef = PositionalArg | StringArg | BooleanArg;
export type ArgsDef = Record<string, ArgDef>;

type ArgValue<A extends ArgDef> = A extends BooleanArg
  ? boolean
  : A extends { type: "positional"; many: true }
    ? string[]
    : A extends { type: "positional"; required: false }
    ? string | undefined
    : A extends PositionalArg
      ? string
      : A extends { default: string }
        ? string
        : string | undefined;

export type ParsedArgs<A extends ArgsDef> = { [K in keyof A]: ArgValue<A[K]> };

/**
 * Reads a command's words strictly: an option it does not take, a value missing or given where
 * none is taken, a word too many or too few are each a UserError of one line (exit 2), with the
 * nearest option named when there is one (`--modle` is not taken as a flag and its value a prompt).
 */
export function parseArgs<A extends ArgsDef>(defs: A, argv: readonly string[], line: string): ParsedArgs<A> {
  const entries = Object.entries(defs);
  const options = Object.fromEntries(
    entries.flatMap(([name, def]) => (def.type === "positional" ? [] : [[name, { type: def.type, ...(def.alias ? { short: def.alias } : {}) }]])),
  ) as Record<string, TokenOption>;
  const tokens = argTokens(argv, options);
  const out: Record<string, string | string[] | boolean | undefined> = {};
  const words: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") words.push(token.value);
    if (token.kind !== "option") continue;
    const def = defs[token.name];
    if (!def || def.type === "positional") {
      const word = argv[token.index] ?? token.rawName;
      // "-be terse", "-5": a value that starts with a dash, not options.
      if (/\s|^-\d/.test(word)) throw new UserError(`${JSON.stringify(word)} is read as options: put -- before a value that starts with a dash`, 2);
      const known = Object.keys(options).map((name) => `--${name}`);
      throw new UserError(`unknown option ${token.rawName}${didYouMean(token.rawName, known)} (${line} --help lists them)`, 2);
    }
    if (def.type === "boolean") {
      if (token.inlineValue) throw new UserError(`${token.rawName} takes no value`, 2);
      out[token.name] = true;
      continue;
    }
    // `--model --yes`: the next option is not taken for a value (`--model=-x` gives one that starts with a dash).
    const looksLikeOption = !token.inlineValue && token.value?.startsWith("-") === true;
    if (token.value === undefined || token.value === "" || looksLikeOption) throw new UserError(`${token.rawName} needs a value`, 2);
    out[token.name] = token.value;
  }
  for (const [name, def] of entries) {
    if (def.type === "boolean") out[name] ??= false;
    else if (def.type === "string") out[name] ??= def.default;
    else if (def.many) {
      if (words.length === 0 && def.required !== false) throw new UserError(`${line} needs ${name.toUpperCase()} (${line} --help says more)`, 2);
      out[name] = words.splice(0);
    } else {
      const word = def.rest ? (words.length > 0 ? words.splice(0).join(" ") : undefined) : words.shift();
      if (word === undefined && def.required !== false) throw new UserError(`${line} needs ${name.toUpperCase()} (${line} --help says more)`, 2);
      out[name] = word;
    }
  }
  if (words.length > 0) throw new UserError(`${line} takes no argument ${JSON.stringify(words[0])} (${line} --help says what it takes)`, 2);
  return out as ParsedArgs<A>;
}

/**
 * The value an option was given among words that may yet be refused (`--name VALUE` or
 * `--name=VALUE`, before a `--`), read leniently: for what the refusal itself is to look like.
 */
export function optionGiven(argv: readonly string[], name: string): string | undefined {
  const end = argv.indexOf("--");
  const words = end === -1 ? argv : argv.slice(0, end);
  let value: string | undefined;
  for (const [i, word] of words.entries()) {
    if (word === `--${name}`) value = words[i + 1];
    else if (word.startsWith(`--${name}=`)) value = word.slice(name.length + 3);
  }
  return value;
}
