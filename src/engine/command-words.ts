import type { Word, WordPart } from "./command-line.ts";

/**
 * What a word becomes before its program sees it, as far as the judge can tell before the line
 * runs: braces (`src/{a,b}`), `~`, `$HOME` and `${HOME}`, and the variables a `for` loop of the
 * line sets. A glob is left as a pattern (literal false), for the places to match on disk. What
 * only running tells (another variable, a substitution, `~user`) makes the word unknown.
 */

/** A variable's possible values (each a word: a pattern when not literal); null when only running tells. */
export type Values = readonly Word[] | null;

/** The most words one word may become and still be judged one by one. */
export const MAX_EXPANSIONS = 64;

type Token = { kind: "char"; ch: string; quoted: boolean } | { kind: "var"; name: string; quoted: boolean } | { kind: "unknown" };

const GLOB = /[*?[]/;
const NAME_EQUALS = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/**
 * The words a word becomes; null when one of them is only known when the line runs, or there are
 * too many. `assignment`: the value of `NAME=value`, which bash neither brace-expands nor globs.
 */
export function expandWord(word: Word, lookup: (name: string) => Values, options: { assignment?: boolean } = {}): Word[] | null {
  const tokens = tokensOf(word.parts);
  const braced = options.assignment ? [tokens] : braces(tokens);
  if (braced === null) return null;
  const out: Word[] = [];
  for (const one of braced) {
    const tilded = tilde(one, lookup);
    if (tilded === null) return null;
    const words = substitute(tilded, lookup, options.assignment === true);
    if (words === null) return null;
    out.push(...words);
    if (out.length > MAX_EXPANSIONS) return null;
  }
  return out;
}

function tokensOf(parts: readonly WordPart[]): Token[] {
  const tokens: Token[] = [];
  for (const part of parts) {
    if (part.kind === "text") for (const ch of part.text) tokens.push({ kind: "char", ch, quoted: part.quoted });
    else if (part.kind === "var") tokens.push({ kind: "var", name: part.name, quoted: part.quoted });
    else tokens.push({ kind: "unknown" });
  }
  return tokens;
}

const isSyntax = (token: Token | undefined, ch: string): boolean => token?.kind === "char" && !token.quoted && token.ch === ch;

/** Brace expansion, as bash does it first: `a{b,c}d` is abd acd, `{1..3}` is 1 2 3; a brace that is neither stays. */
function braces(tokens: Token[]): Token[][] | null {
  for (let i = 0; i < tokens.length; i++) {
    if (!isSyntax(tokens[i], "{")) continue;
    const found = matching(tokens, i);
    if (found === null) continue;
    const inner = tokens.slice(i + 1, found.end);
    const alternatives = found.commas.length > 0 ? split(tokens, i, found) : sequence(inner);
    if (alternatives === null) continue;
    if (alternatives === TOO_MANY || alternatives.length > MAX_EXPANSIONS) return null;
    const prefix = tokens.slice(0, i);
    const suffix = tokens.slice(found.end + 1);
    const out: Token[][] = [];
    for (const alternative of alternatives) {
      const rest = braces([...alternative, ...suffix]);
      if (rest === null) return null;
      for (const r of rest) out.push([...prefix, ...r]);
      if (out.length > MAX_EXPANSIONS) return null;
    }
    return out;
  }
  return [tokens];
}

/** The `}` closing the `{` at `open`, and the commas of this level; null when it is never closed. */
function matching(tokens: Token[], open: number): { end: number; commas: number[] } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let j = open; j < tokens.length; j++) {
    if (isSyntax(tokens[j], "{")) depth++;
    else if (isSyntax(tokens[j], "}")) {
      depth--;
      if (depth === 0) return { end: j, commas };
    } else if (depth === 1 && isSyntax(tokens[j], ",")) commas.push(j);
  }
  return null;
}

function split(tokens: Token[], open: number, found: { end: number; commas: number[] }): Token[][] {
  const bounds = [open, ...found.commas, found.end];
  return bounds.slice(1).map((end, k) => tokens.slice((bounds[k] ?? open) + 1, end));
}

const TOO_MANY = "too many";

/** `{1..5}`, `{01..10..2}`, `{a..e}`: the words, or null when it is not a sequence. */
function sequence(inner: Token[]): Token[][] | null | typeof TOO_MANY {
  if (inner.some((t) => t.kind !== "char" || t.quoted)) return null;
  const text = inner.map((t) => (t.kind === "char" ? t.ch : "")).join("");
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numbers ?? letters;
  if (!match) return null;
  const [, from = "", to = "", by] = match;
  const start = numbers ? Number(from) : from.charCodeAt(0);
  const end = numbers ? Number(to) : to.charCodeAt(0);
  const step = Math.abs(Number(by ?? 1)) || 1;
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (count > MAX_EXPANSIONS) return TOO_MANY;
  const width = numbers && [from, to].some((n) => /^-?0\d/.test(n)) ? Math.max(from.length, to.length) : 0;
  const words: Token[][] = [];
  for (let k = 0; k < count; k++) {
    const value = start + (end >= start ? k * step : -k * step);
    const shown = numbers ? pad(value, width) : String.fromCharCode(value);
    words.push([...shown].map((ch) => ({ kind: "char" as const, ch, quoted: true })));
  }
  return words;
}

function pad(value: number, width: number): string {
  const digits = String(Math.abs(value)).padStart(value < 0 ? width - 1 : width, "0");
  return value < 0 ? `-${digits}` : digits;
}

/**
 * Tilde expansion: a `~` or `~/…` at the start, and after the `=` or a `:` of a word that looks
 * like an assignment, is $HOME. `~user`, `~+`, `~-`: unknown (null).
 */
function tilde(tokens: Token[], lookup: (name: string) => Values): Token[] | null {
  const plain = tokens.map((t) => (t.kind === "char" && !t.quoted ? t.ch : "\0")).join("");
  const assignment = NAME_EQUALS.exec(plain);
  const starts = [0];
  if (assignment) {
    const equals = assignment[0].length - 1;
    starts.push(equals + 1);
    for (let k = equals + 1; k < tokens.length; k++) if (isSyntax(tokens[k], ":")) starts.push(k + 1);
  }
  let out = tokens;
  // From the last, so that earlier indexes stay right.
  for (const start of starts.reverse()) {
    if (!isSyntax(out[start], "~")) continue;
    let end = start + 1;
    while (end < out.length && !isSyntax(out[end], "/") && !(assignment && isSyntax(out[end], ":"))) end++;
    const prefix = out.slice(start + 1, end);
    // A quoted character in the prefix leaves the ~ as it is.
    if (prefix.some((t) => t.kind === "char" && t.quoted)) continue;
    if (prefix.length > 0) return null;
    const home = lookup("HOME");
    if (home === null || home.length !== 1 || !home[0]?.literal) return null;
    const replaced = [...home[0].text].map((ch) => ({ kind: "char" as const, ch, quoted: true }));
    out = [...out.slice(0, start), ...replaced, ...out.slice(end)];
  }
  return out;
}

/** Parameters replaced by their values (each value a word); the words that makes. */
function substitute(tokens: Token[], lookup: (name: string) => Values, assignment: boolean): Word[] | null {
  let words: { text: string; glob: boolean; pattern: string }[] = [{ text: "", glob: false, pattern: "" }];
  for (const token of tokens) {
    if (token.kind === "unknown") return null;
    if (token.kind === "char") {
      const live = !token.quoted && !assignment && GLOB.test(token.ch);
      words = words.map((w) => ({ text: w.text + token.ch, glob: w.glob || live, pattern: w.pattern + (live ? token.ch : escapeGlob(token.ch)) }));
      continue;
    }
    const values = lookup(token.name);
    if (values === null) return null;
    const next: typeof words = [];
    for (const w of words) {
      for (const value of values) {
        // Unquoted, a value is split on blanks, which the judge does not follow.
        if (!token.quoted && !assignment && /\s/.test(value.text)) return null;
        const live = !value.literal || (!token.quoted && !assignment && GLOB.test(value.text));
        next.push({ text: w.text + value.text, glob: w.glob || live, pattern: w.pattern + (live ? value.text : escapeGlob(value.text)) });
      }
    }
    if (next.length > MAX_EXPANSIONS) return null;
    words = next;
  }
  return words.map((w) => (w.glob ? { text: w.pattern, literal: false, parts: [{ kind: "text", text: w.pattern, quoted: false }] } : literalWord(w.text)));
}

/** A word that is exactly this text. */
export function literalWord(text: string): Word {
  return { text, literal: true, parts: [{ kind: "text", text, quoted: true }] };
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\{}]/g, (c) => `\\${c}`);
}
