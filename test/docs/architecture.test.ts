import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const PAGE = join(ROOT, "docs/ARCHITECTURE.md");
/** The harness spec, beside the repository as the rest of the harness has it. */
const SPEC = resolve(ROOT, "../shared/spec/acp.md");

function spec(): string {
  if (!existsSync(SPEC)) throw new Error(`the protocol spec is not at ${SPEC}: the architecture page is checked against it, so put the harness's shared/ beside the repository`);
  return readFileSync(SPEC, "utf8");
}

const page = readFileSync(PAGE, "utf8");

/** Every method the spec names: each `_lembas/...` it mentions (not the bare prefixes) and each its headings define. */
function specMethods(): string[] {
  const text = spec();
  const named = [...text.matchAll(/_lembas\/[a-z_/]*/g)].map((m) => m[0]).filter((name) => !name.endsWith("/"));
  return [...new Set([...named, ...specHeadings(text).map((h) => h.method)])].sort();
}

type Heading = { method: string; direction: string; request: boolean };

/** The spec's method headings ("session/cancel — client → agent (notification)"), as a row's kind says them. */
function specHeadings(text: string): Heading[] {
  return [...text.matchAll(/^([a-z_/]+) — (client|agent) → (client|agent)( → result)?(.*)$/gm)].map((m) => {
    const method = m[1] ?? "";
    const direction = m[2] === "client" ? "instance → device" : "device → instance";
    // Among the _lembas methods "→ result" marks a request; the standard ones say "(notification)".
    const request = method.startsWith("_lembas/") ? m[4] !== undefined : !(m[5] ?? "").includes("(notification)");
    return { method, direction, request };
  });
}

type Row = { method: string; kind: string; where: string };

/** The rows of the page's routing table. */
function routingRows(): Map<string, Row> {
  const start = page.indexOf("## A shared session's routing");
  if (start < 0) throw new Error("docs/ARCHITECTURE.md has no section \"A shared session's routing\"");
  const rows = new Map<string, Row>();
  for (const m of page.slice(start).matchAll(/^\| `([^`]+)` \| ([^|]+) \| [^|]+ \| ([^|]+) \|$/gm)) {
    rows.set(m[1] ?? "", { method: m[1] ?? "", kind: (m[2] ?? "").trim(), where: (m[3] ?? "").trim() });
  }
  return rows;
}

/** Every `src/...` path the page names in backticks. */
function namedPaths(): string[] {
  return [...new Set([...page.matchAll(/`(src\/[^`\s]*)`/g)].map((m) => m[1] ?? ""))];
}

describe("the architecture page", () => {
  test("the spec is found and names its methods", () => {
    expect(specMethods().length).toBeGreaterThan(20);
  });

  test("every method the spec names has a row in the routing table", () => {
    const rows = routingRows();
    expect(specMethods().filter((method) => !rows.has(method))).toEqual([]);
  });

  test("each row says the kind and direction the spec gives its method", () => {
    const rows = routingRows();
    const wrong = specHeadings(spec())
      .filter((h) => rows.get(h.method)?.kind !== `${h.request ? "request" : "notification"}, ${h.direction}`)
      .map((h) => `${h.method}: the page says "${rows.get(h.method)?.kind}"`);
    expect(wrong).toEqual([]);
  });

  test("each row names the one file that handles its method", () => {
    const wrong = [...routingRows().values()].filter((row) => !/^`src\/[^`]+\.ts`$/.test(row.where)).map((row) => row.method);
    expect(wrong).toEqual([]);
  });

  test("every src/ path the page names exists", () => {
    expect(namedPaths().length).toBeGreaterThan(0);
    expect(namedPaths().filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  test("every folder of src/ is in the page's layers", () => {
    const folders = readdirSync(join(ROOT, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `src/${e.name}/`);
    const named = new Set(namedPaths());
    expect(folders.filter((folder) => !named.has(folder))).toEqual([]);
  });
});
