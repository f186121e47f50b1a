/**
 * Benchmarks measure time; tests never assert it: the machines are shared and noisy (CI runs on a
 * loaded 2-core machine), so a bound on an elapsed time fails for a slow machine, not for a defect.
 * A test shows "does not wait for X" by making X outlast the test's timeout, or by the order of
 * events; a product's bound by injecting it small (src/timing.ts) and checking its outcome; "linear,
 * not quadratic" by counting work. This finds the shapes of a timed assertion in test/, so none
 * slips back.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/**
 * Files allowed a timed assertion, each with why nothing else can show what it guards. Empty: keep
 * it so, and add one only with its reason.
 */
const ALLOWED: Record<string, string> = {};

/** Reading the clock: Date.now(), performance.now(), Bun.nanoseconds(), process.hrtime(). */
const CLOCK = /\bnow\(\)|\bnanoseconds\(|\bhrtime\b/;
/** A name that says it holds a time or a duration: elapsed, took, ms, seconds, timings, fooMs, a `.time`. */
const DURATION = /\b(elapsed|took|duration|ms|seconds|timings?)\b|[a-z]Ms\b|\.time\b(?!\s*\()/;
/** Matchers that put an upper bound on what they are given (a lower bound never fails for a slow machine). */
const UPPER = /^\.(toBeLessThan|toBeLessThanOrEqual)\(/;
/** The same bound the other way round: a limit expected greater than a time. */
const LOWER_OF_LIMIT = /^\.(toBeGreaterThan|toBeGreaterThanOrEqual)\(/;

/** The text of the parenthesised group that opens at `open` (its parentheses left out). */
function group(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/**
 * The names a file gives a clock reading: declared from one or from a name so declared (`const
 * started = Date.now()`, `const end = started + 5_000`), set to one (`seenAt = Date.now()`), or a
 * property holding one (`{ at: performance.now() }`, read as `.at`).
 */
function clockNames(text: string): { names: Set<string>; properties: Set<string> } {
  const source = code(text);
  const declared = [...source.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=(?![=>])([^;\n]*)/g)].map((m) => ({ name: m[1] ?? "", value: m[2] ?? "" }));
  const set = [...source.matchAll(/([A-Za-z_$][\w$]*)\s*[:=](?![=>])\s*([^,;}\n]*)/g)].filter((m) => CLOCK.test(m[2] ?? ""));
  const names = new Set(set.map((m) => m[1] ?? ""));
  const properties = new Set(set.filter((m) => m[0].includes(":")).map((m) => m[1] ?? ""));
  for (let grew = true; grew; ) {
    grew = false;
    for (const { name, value } of declared) {
      if (names.has(name) || !mentions(value, { names, properties })) continue;
      names.add(name);
      grew = true;
    }
  }
  return { names, properties };
}

/** Code without its string literals (whose words are no names). */
function code(expression: string): string {
  return expression.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`/g, '""');
}

/** Whether an expression reads the clock or uses one of the clock's names. */
function mentions(text: string, clock: { names: Set<string>; properties: Set<string> }): boolean {
  const expression = code(text);
  if (CLOCK.test(expression)) return true;
  if ([...expression.matchAll(/\.([A-Za-z_$][\w$]*)\b(?!\s*\()/g)].some((m) => clock.properties.has(m[1] ?? ""))) return true;
  return [...expression.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)].some((m) => clock.names.has(m[0]));
}

/** Whether an expression is, or is made from, a time. */
function timed(expression: string, clock: { names: Set<string>; properties: Set<string> }): boolean {
  return DURATION.test(code(expression)) || mentions(expression, clock);
}

/** Every timed assertion in a test file's source, as `line: text`. */
function timedAssertions(source: string): string[] {
  const clock = clockNames(source);
  const found: string[] = [];
  for (const m of source.matchAll(/\bexpect\(/g)) {
    const open = (m.index ?? 0) + "expect".length;
    const subject = group(source, open);
    const rest = source.slice(open + subject.length + 2).replace(/^\s*(\.not|\.resolves|\.rejects)?/, "");
    const matcher = rest.match(/^\.\w+\(/)?.[0] ?? "";
    const argument = matcher ? group(rest, matcher.length - 1) : "";
    const bound = (UPPER.test(matcher) && timed(subject, clock)) || (LOWER_OF_LIMIT.test(matcher) && timed(argument, clock));
    if (!bound) continue;
    const line = source.slice(0, m.index).split("\n").length;
    found.push(`${line}: ${source.split("\n")[line - 1]?.trim() ?? ""}`);
  }
  return found;
}

describe("no test asserts wall-clock time", () => {
  test("the shapes of a timed assertion are found, and bounds on what is not a time are not", () => {
    const shapes = [
      "expect(Date.now() - started).toBeLessThan(2_000);",
      "expect(performance.now() - at).toBeLessThanOrEqual(150);",
      "const t0 = Bun.nanoseconds();\nwork();\nexpect(Bun.nanoseconds() - t0).toBeLessThan(1e9);",
      "const took = performance.now() - started;\nexpect(took).toBeLessThan(5000);",
      "const started = Date.now();\nconst end = started + 5;\nexpect(end).toBeLessThan(10);",
      "expect(elapsed).toBeLessThan(12_000);",
      "expect(run.ms).toBeLessThan(10_000);",
      "expect(Math.max(...timings)).toBeLessThan(50);",
      "expect(5000).toBeGreaterThan(Date.now() - started);",
      "expect(firstTokenMs)\n  .toBeLessThan(300);",
      "let seenAt = 0;\nseenAt = Date.now();\nexpect(seenAt - (request?.time ?? 0)).toBeLessThan(1200);",
      "draws.push({ at: performance.now() });\nconst first = draws[0]?.at ?? 0;\nexpect((draws[1]?.at ?? 0) - first).toBeLessThan(75);",
    ];
    for (const shape of shapes) expect({ shape, found: timedAssertions(shape).length }).toEqual({ shape, found: 1 });
    const fine = [
      "expect(Date.now() - started).toBeGreaterThanOrEqual(900);",
      "expect(result.output.length).toBeLessThan(31_000);",
      "expect(waits).toEqual([100, 200, 400]);",
      "expect(list.length).toBeLessThanOrEqual(SKILLS_BUDGET);",
      "const at = Date.now();\nexpect(events.length).toBeLessThan(100);",
      "let buffered = 0;\nconst now = performance.now();\nbuffered = Math.max(0, buffered - now);\nexpect(buffered).toBeLessThanOrEqual(HIGH);",
      "expect(list.at(-1)).toBeLessThan(3);",
      'const started = Date.now();\nconst result = run({ command: "echo started" });\nexpect(result.output.length).toBeLessThan(31_000);',
    ];
    for (const shape of fine) expect({ shape, found: timedAssertions(shape) }).toEqual({ shape, found: [] });
  });

  test("no file in test/ has one (benchmarks in bench/ print the figures)", () => {
    const files = [...new Bun.Glob("test/**/*.ts").scanSync({ cwd: ROOT })].filter((f) => f !== "test/docs/no-timed-assertions.test.ts" && !(f in ALLOWED));
    const found = files.flatMap((file) => timedAssertions(readFileSync(join(ROOT, file), "utf8")).map((line) => `${file}:${line}`));
    expect(found).toEqual([]);
  });

  test("every file allowed a timed assertion says why, and still has one", () => {
    for (const [file, why] of Object.entries(ALLOWED)) {
      expect(why.length).toBeGreaterThan(20);
      expect(timedAssertions(readFileSync(join(ROOT, file), "utf8")).length).toBeGreaterThan(0);
    }
  });
});
