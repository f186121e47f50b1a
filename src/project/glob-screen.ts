/**
 * A list of globs compiled to be matched against many texts (a listing judges every file's name
 * and path): a glob's fixed start and end say which first and last characters a text it matches
 * can have, so a text is looked up by its own first and last characters and only the globs that
 * could match it are run. Most names and paths have none.
 */
export type GlobScreen = {
  /**
   * Whether any glob matches `text.slice(from)`, lower-cased first when the screen folds case.
   * Nothing is sliced or lower-cased for a text no glob could match.
   */
  matches(text: string, from?: number): boolean;
  /** Per ASCII code as written: 1 when a text starting (`firsts`) or ending (`lasts`) with it may match; `always` when any may. */
  readonly firsts: Uint8Array;
  readonly lasts: Uint8Array;
  readonly always: boolean;
};

/**
 * Whether `text.slice(from)` may match any of `screens`, from its first and last characters alone
 * (false: none matches; true: ask each).
 */
export function anyMayMatch(screens: readonly GlobScreen[]): (text: string, from: number) => boolean {
  const firsts = new Uint8Array(128);
  const lasts = new Uint8Array(128);
  for (const screen of screens) {
    for (let code = 0; code < 128; code++) {
      firsts[code] = (firsts[code] ?? 0) | (screen.firsts[code] ?? 0);
      lasts[code] = (lasts[code] ?? 0) | (screen.lasts[code] ?? 0);
    }
  }
  const always = screens.some((screen) => screen.always);
  return (text, from) => {
    if (always || text.length <= from) return true;
    const first = text.charCodeAt(from);
    const last = text.charCodeAt(text.length - 1);
    return first >= 128 || last >= 128 || firsts[first] === 1 || lasts[last] === 1;
  };
}

/** The text before a glob's first special character and after its last: every text it matches starts and ends with them. */
export type Shape = { start: string; end: string };

const SPECIAL = /[*?[\]{}\\!]/;

export function shapeOf(pattern: string): Shape {
  // Negated, or a form the glob may normalise: no shape to go by.
  if (pattern.startsWith("!") || pattern.startsWith("./") || pattern.startsWith("/")) return { start: "", end: "" };
  const first = pattern.search(SPECIAL);
  if (first < 0) return { start: pattern, end: "" };
  let last = pattern.length - 1;
  while (!SPECIAL.test(pattern.charAt(last))) last--;
  // `**/` and `/**` may match no directory at all, the slash beside them included.
  return { start: pattern.slice(0, first).replace(/\/$/, ""), end: pattern.slice(last + 1).replace(/^\//, "") };
}

type Compiled = { glob: Bun.Glob; shape: Shape };

/**
 * Compiles `patterns` (already lower-cased when `fold` is set: texts are then lower-cased to be
 * matched, as `String.prototype.toLowerCase` does).
 */
export function globScreen(patterns: readonly string[], fold: boolean): GlobScreen {
  const all: Compiled[] = patterns.map((pattern) => ({ glob: new Bun.Glob(pattern), shape: shapeOf(pattern) }));
  // By the ASCII code a matching text must start with; else (no fixed start) by the one it must end with; else always run.
  const byFirst: Compiled[][] = Array.from({ length: 128 }, () => []);
  const byLast: Compiled[][] = Array.from({ length: 128 }, () => []);
  const always: Compiled[] = [];
  for (const one of all) {
    const { start, end } = one.shape;
    // A non-ASCII fixed character is matched only by texts that are screened the long way (below).
    if (start !== "") byFirst[start.charCodeAt(0)]?.push(one);
    else if (end !== "") byLast[end.charCodeAt(end.length - 1)]?.push(one);
    else always.push(one);
  }
  // The codes as written that lead to a bucket (both cases of a letter when folding).
  const firsts = new Uint8Array(128);
  const lasts = new Uint8Array(128);
  for (let code = 0; code < 128; code++) {
    const key = fold ? lowerAscii(code) : code;
    firsts[code] = (byFirst[key]?.length ?? 0) > 0 ? 1 : 0;
    lasts[code] = (byLast[key]?.length ?? 0) > 0 ? 1 : 0;
  }
  const run = (list: readonly Compiled[], text: string): boolean => {
    for (const { glob, shape } of list) {
      if (!text.startsWith(shape.start) || !text.endsWith(shape.end)) continue;
      if (glob.match(text)) return true;
    }
    return false;
  };
  return {
    firsts,
    lasts,
    always: always.length > 0,
    matches(text, from = 0) {
      const length = text.length;
      if (all.length === 0) return false;
      let first = length > from ? text.charCodeAt(from) : 128;
      let last = length > from ? text.charCodeAt(length - 1) : 128;
      // An ASCII character lower-cases to one ASCII character whatever stands beside it; others
      // (a Kelvin sign becomes `k`, `İ` two characters) go the long way.
      if (first >= 128 || last >= 128) {
        const whole = from === 0 ? text : text.slice(from);
        return run(all, fold ? whole.toLowerCase() : whole);
      }
      if (fold) {
        first = lowerAscii(first);
        last = lowerAscii(last);
      }
      const starting = byFirst[first] ?? [];
      const ending = byLast[last] ?? [];
      if (starting.length === 0 && ending.length === 0 && always.length === 0) return false;
      const sliced = from === 0 ? text : text.slice(from);
      const whole = fold ? sliced.toLowerCase() : sliced;
      return run(starting, whole) || run(ending, whole) || run(always, whole);
    },
  };
}

function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}
