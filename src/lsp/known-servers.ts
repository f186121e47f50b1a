import { existsSync, realpathSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";

/** A language server lembas knows how to start: its command, and the files it is for. */
export type ServerSpec = {
  name: string;
  command: string;
  args: readonly string[];
  extensions: readonly string[];
  /** From config.yaml's `lsp:` (the person's own), not one lembas knows of. */
  configured: boolean;
};

/** The servers lembas starts where they are installed, in order of preference for a language. */
const KNOWN: readonly ServerSpec[] = [
  { name: "typescript", command: "typescript-language-server", args: ["--stdio"], extensions: ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"], configured: false },
  { name: "pyright", command: "pyright-langserver", args: ["--stdio"], extensions: ["py", "pyi"], configured: false },
  { name: "pylsp", command: "pylsp", args: [], extensions: ["py", "pyi"], configured: false },
  { name: "gopls", command: "gopls", args: [], extensions: ["go"], configured: false },
  { name: "rust-analyzer", command: "rust-analyzer", args: [], extensions: ["rs"], configured: false },
];

const LANGUAGE_IDS: Record<string, string> = {
  ts: "typescript", mts: "typescript", cts: "typescript", tsx: "typescriptreact",
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascriptreact",
  py: "python", pyi: "python", go: "go", rs: "rust",
};

/** config.yaml's `lsp:` entries, as the schema reads them. */
export type ConfiguredServers = Record<string, { command: string; args?: string[] | undefined; extensions: string[] }>;

/** A server found for a file: what runs, from where, and what it is told at initialize. */
export type FoundServer = {
  spec: ServerSpec;
  /** The executable, absolute. */
  path: string;
  /** Found in the project's own node_modules/.bin: the project's code, not the person's. */
  fromProject: boolean;
  initializationOptions?: Record<string, unknown>;
};

/** The extension of a path as the servers are keyed by it: lower case, without the dot. */
export function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase();
}

/** The language id a document of this path is opened with. */
export function languageId(path: string): string {
  const ext = extensionOf(path);
  return LANGUAGE_IDS[ext] ?? ext;
}

/** The servers that may handle a file of this extension: the person's first, then the known ones. */
export function specsFor(ext: string, configured: ConfiguredServers): ServerSpec[] {
  const own = Object.entries(configured).map(([name, s]) => ({ name, command: s.command, args: s.args ?? [], extensions: s.extensions.map((e) => e.replace(/^\./, "").toLowerCase()), configured: true }));
  return [...own, ...KNOWN].filter((spec) => spec.extensions.includes(ext));
}

/**
 * The first of these servers installed for the project at ROOT: a command with a slash is taken
 * from the project's root, else it is looked for in the project's node_modules/.bin, then on PATH.
 * `projectBins: false` (plan mode) leaves out what the project itself ships.
 */
export function findServer(specs: readonly ServerSpec[], root: string, PATH: string, projectBins: boolean): FoundServer | null {
  for (const spec of specs) {
    const found = locate(spec.command, root, PATH, projectBins);
    if (!found) continue;
    const options = spec.name === "typescript" && !spec.configured ? typescriptOptions(found.path, PATH) : undefined;
    return { spec, ...found, ...(options ? { initializationOptions: options } : {}) };
  }
  return null;
}

function locate(command: string, root: string, PATH: string, projectBins: boolean): { path: string; fromProject: boolean } | null {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : resolve(root, command);
    if (!existsSync(path)) return null;
    const fromProject = !isAbsolute(command);
    return fromProject && !projectBins ? null : { path, fromProject };
  }
  const local = join(root, "node_modules", ".bin", command);
  if (projectBins && existsSync(local)) return { path: local, fromProject: true };
  const onPath = Bun.which(command, { PATH });
  return onPath ? { path: onPath, fromProject: false } : null;
}

/**
 * typescript-language-server runs a tsserver: the project's, else the one installed beside the
 * server (TypeScript 7 ships none, so the newest 5 installed as `tsserver` is what is found then).
 * One tsserver, not a syntax server beside it: both would load the project, twice the CPU of a
 * start, for what lembas never asks (a document's outline while its project loads waits for it).
 */
function typescriptOptions(server: string, PATH: string): Record<string, unknown> {
  const tsserver = Bun.which("tsserver", { PATH: `${dirname(server)}:${PATH}` });
  const one = { useSyntaxServer: "never" };
  if (!tsserver) return { tsserver: one };
  try {
    return { tsserver: { ...one, fallbackPath: realpathSync(tsserver) } };
  } catch {
    return { tsserver: one };
  }
}
