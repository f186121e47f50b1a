/**
 * Checks of JSON values by hand, worded as zod 4 words them: the ACP SDK's params schemas are
 * mirrored with these (src/rpc/acp-params.ts) so that no process loads the SDK's module, which
 * builds every one of its schemas at load. A check returns the value as zod would return it
 * (unknown keys dropped, defaults put in) or zod's issues, which `issueTree` turns into zod's
 * `format()` tree. test/rpc/acp-params.test.ts holds them to the SDK's schemas.
 */
export type Issue = { path: PropertyKey[]; message: string; union?: Issue[][] };
export type Checked = { ok: true; value: unknown } | { ok: false; issues: Issue[] };
export type Check = (value: unknown) => Checked;

const ok = (value: unknown): Checked => ({ ok: true, value });
const fail = (message: string): Checked => ({ ok: false, issues: [{ path: [], message }] });

function received(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

const expected = (what: string, value: unknown) => fail(`Invalid input: expected ${what}, received ${received(value)}`);

export const string: Check = (v) => (typeof v === "string" ? ok(v) : expected("string", v));
export const number: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? ok(v) : expected("number", v));
export const boolean: Check = (v) => (typeof v === "boolean" ? ok(v) : expected("boolean", v));
export const unknown: Check = (v) => ok(v);

/** zod's `z.int()` (a safe integer) within bounds. */
export function int(min: number, max: number): Check {
  return (v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return expected("number", v);
    if (!Number.isSafeInteger(v)) return fail("Invalid input: expected int, received number");
    if (v < min) return fail(`Too small: expected number to be >=${min}`);
    if (v > max) return fail(`Too big: expected number to be <=${max}`);
    return ok(v);
  };
}

/** The SDK's `wideInt()`: any integer, at least `min` when given. */
export function wideInt(min?: number): Check {
  return (v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return expected("number", v);
    if (!Number.isInteger(v)) return fail("Invalid input: expected int, received number");
    if (min !== undefined && v < min) return fail(`Too small: expected number to be >=${min}`);
    return ok(v);
  };
}

export const literal =
  (tag: string): Check =>
  (v) =>
    v === tag ? ok(v) : fail(`Invalid input: expected ${JSON.stringify(tag)}`);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `z.record(z.string(), z.unknown())`: a copy of the object. */
export const record: Check = (v) => (isPlainObject(v) ? ok({ ...v }) : expected("record", v));

const within = (key: PropertyKey, issues: Issue[]): Issue[] => issues.map((i) => ({ ...i, path: [key, ...i.path] }));

/** `z.object(shape)`: the shape's keys checked in order; keys it does not name are dropped. */
export function object(shape: Record<string, Check>): Check {
  const keys = Object.keys(shape);
  return (v) => {
    if (!isPlainObject(v)) return expected("object", v);
    const out: Record<string, unknown> = {};
    const issues: Issue[] = [];
    for (const key of keys) {
      const r = shape[key]!(v[key]);
      if (!r.ok) issues.push(...within(key, r.issues));
      else if (r.value !== undefined || key in v) out[key] = r.value;
    }
    return issues.length > 0 ? { ok: false, issues } : ok(out);
  };
}

export function array(item: Check): Check {
  return (v) => {
    if (!Array.isArray(v)) return expected("array", v);
    const out: unknown[] = [];
    const issues: Issue[] = [];
    v.forEach((element, index) => {
      const r = item(element);
      if (r.ok) out.push(r.value);
      else issues.push(...within(index, r.issues));
    });
    return issues.length > 0 ? { ok: false, issues } : ok(out);
  };
}

/** The SDK's `vecSkipError`: an array whose bad items are left out. */
export function arraySkipping(item: Check): Check {
  return (v) => {
    if (!Array.isArray(v)) return expected("array", v);
    return ok(v.flatMap((element) => {
      const r = item(element);
      return r.ok ? [r.value] : [];
    }));
  };
}

export const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? ok(undefined) : check(v);
export const nullish =
  (check: Check): Check =>
  (v) =>
    v === undefined || v === null ? ok(v) : check(v);
/** `.optional().default(value)`. */
export const withDefault =
  (check: Check, value: () => unknown): Check =>
  (v) =>
    v === undefined ? ok(value()) : check(v);
/** The SDK's `defaultOnError`: zod's `.catch`. */
export const orElse =
  (check: Check, fallback: () => unknown): Check =>
  (v) => {
    const r = check(v);
    return r.ok ? r : ok(fallback());
  };
/** The SDK's `defaultOnNull`: null read as the empty value. */
export const nullAs =
  (check: Check, empty: () => unknown): Check =>
  (v) =>
    check(v === null ? empty() : v);

/** `z.union(options)`: the first that passes; when none does, one issue holding each one's. */
export function union(...options: Check[]): Check {
  return (v) => {
    const branches: Issue[][] = [];
    for (const option of options) {
      const r = option(v);
      if (r.ok) return r;
      branches.push(r.issues);
    }
    return { ok: false, issues: [{ path: [], message: "Invalid input", union: branches }] };
  };
}

/** `a.and(b)` of two object schemas: both checked, their outputs merged. */
export function both(a: Check, b: Check): Check {
  return (v) => {
    const left = a(v);
    const right = b(v);
    if (left.ok && right.ok) return ok({ ...(left.value as object), ...(right.value as object) });
    return { ok: false, issues: [...(left.ok ? [] : left.issues), ...(right.ok ? [] : right.issues)] };
  };
}

type Tree = { _errors: string[]; [key: string]: unknown };

/** zod's `formatError` tree of the issues: each message under its path, a union's branches merged in. */
export function issueTree(issues: Issue[]): Tree {
  const tree: Tree = { _errors: [] };
  const add = (list: Issue[], prefix: PropertyKey[]) => {
    for (const issue of list) {
      const path = [...prefix, ...issue.path];
      if (issue.union && issue.union.length > 0) {
        for (const branch of issue.union) add(branch, path);
        continue;
      }
      let node = tree;
      for (const key of path) {
        if (key === "_errors") continue;
        const name = String(key);
        if (!Object.hasOwn(node, name)) Object.defineProperty(node, name, { value: { _errors: [] }, enumerable: true, writable: true, configurable: true });
        node = node[name] as Tree;
      }
      node._errors.push(issue.message);
    }
  };
  add(issues, []);
  return tree;
}
