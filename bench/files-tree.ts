// Generated project trees for bench/files.ts: deterministic, with realistic names (nested src/
// folders, camelCase, kebab-case and snake_case names, tests beside sources, many extensions).
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";

const WORDS = (
  "app api auth button card cache client config context controller core data db dialog editor event " +
  "field file filter form graph grid header helper hook icon index input item layout list loader logger " +
  "main menu message metric modal model node page panel parser plugin popup profile provider query queue " +
  "reader record render report request resolver response route router schema search server service " +
  "session settings sidebar socket state store stream style table tab theme token tool tooltip tree type " +
  "user util validator view widget worker"
).split(" ");
const EXTENSIONS = ["ts", "ts", "ts", "tsx", "tsx", "js", "jsx", "json", "md", "css", "scss", "py", "go", "rs", "java", "kt", "c", "h", "cpp", "yaml", "yml", "toml", "sql", "sh", "html", "svg", "png", "txt"];
const TOP = ["packages", "apps", "src", "libs", "services", "tools", "docs", "scripts", "test", "examples"];
const SUBDIRS = ["src", "lib", "components", "hooks", "utils", "internal", "api", "models", "views", "pages", "features", "common", "shared", "test", "__tests__", "fixtures", "styles", "assets", "config", "types"];

/** A small deterministic PRNG (mulberry32): the same seed gives the same tree. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct project file paths (relative, `/`-separated), about 20 to a directory. */
export function generatePaths(count: number, seed = 1): string[] {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const dirs = directories(rand, pick, Math.ceil(count / 20));
  const paths = new Set<string>();
  while (paths.size < count) paths.add(`${pick(dirs)}/${fileName(rand, pick)}`);
  return [...paths];
}

/** About `count` folders: a few packages, each a tree in which a folder has a few subfolders. */
function directories(rand: () => number, pick: <T>(list: readonly T[]) => T, count: number): string[] {
  const dirs = new Set<string>();
  const frontier: string[] = [];
  for (const top of TOP) {
    const packaged = top === "packages" || top === "apps" || top === "services";
    const roots = packaged ? Array.from({ length: 12 }, () => `${top}/${pick(WORDS)}-${pick(WORDS)}/src`) : [top];
    for (const root of roots) frontier.push(root);
  }
  for (let i = 0; dirs.size < count && i < frontier.length; i++) {
    const parent = frontier[i] as string;
    dirs.add(parent);
    const children = 2 + Math.floor(rand() * 7);
    for (let c = 0; c < children; c++) {
      frontier.push(`${parent}/${rand() < 0.5 ? pick(SUBDIRS) : name(rand, pick, rand() < 0.5 ? "kebab" : "camel")}`);
    }
  }
  return [...dirs];
}

function fileName(rand: () => number, pick: <T>(list: readonly T[]) => T): string {
  const styles = ["camel", "pascal", "kebab", "snake"] as const;
  const ext = pick(EXTENSIONS);
  const base = name(rand, pick, pick(styles));
  const suffix = ext.startsWith("ts") || ext.startsWith("js") ? (rand() < 0.15 ? ".test" : rand() < 0.05 ? ".spec" : "") : "";
  return `${base}${suffix}.${ext}`;
}

function name(rand: () => number, pick: <T>(list: readonly T[]) => T, style: "camel" | "pascal" | "kebab" | "snake"): string {
  const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(WORDS));
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  if (style === "kebab") return words.join("-");
  if (style === "snake") return words.join("_");
  if (style === "pascal") return words.map(cap).join("");
  return words.map((w, i) => (i === 0 ? w : cap(w))).join("");
}

/** What the generated tree's .gitignore lists, and paths below those folders. */
export const GITIGNORE = "node_modules/\ndist/\nbuild/\ncoverage/\n*.log\n";

/** `count` paths a .gitignore as {@link GITIGNORE} leaves out (node_modules, build output, logs). */
export function ignoredPaths(count: number, seed = 2): string[] {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const paths = new Set<string>();
  while (paths.size < count) {
    const r = rand();
    // A few hundred folders, as installed packages and build output have.
    const top = r < 0.6 ? `node_modules/${pick(WORDS)}-${pick(WORDS)}` : r < 0.8 ? `packages/${pick(WORDS)}-${pick(WORDS)}/dist` : r < 0.95 ? "build/static" : "coverage";
    paths.add(`${top}/${pick(SUBDIRS)}/${fileName(rand, pick)}`);
    if (rand() < 0.01) paths.add(`${pick(TOP)}/debug-${paths.size}.log`);
  }
  return [...paths];
}

/** Writes empty files at `paths` below `root`, creating folders as needed. */
export function writeTree(root: string, paths: readonly string[]): void {
  const made = new Set<string>();
  for (const path of paths) {
    const file = join(root, path);
    const dir = dirname(file);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    closeSync(openSync(file, "w"));
  }
}
