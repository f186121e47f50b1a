import { resolve } from "node:path";
import { startGitStatus } from "../engine/git-status.ts";
import { projectRoot } from "../project/root.ts";
import { realOr } from "../real-path.ts";

/**
 * What `lembas run` sets going before its modules load, from its words alone: the project's git
 * status (its system prompt shows it, so the first model request waits on it), in the directory
 * `--cwd` names or the current one. git runs while the rest of the program loads; a session that
 * turns out to live elsewhere (`--session` of another project) reads its own.
 */
export function startRunEarly(argv: readonly string[]): void {
  const words = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  // A prompt typed at stdin may take minutes: the status is the session's start's, read after it.
  if (argv.includes("-")) return;
  let cwd: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (word === "--cwd") cwd = words[i + 1];
    else if (word.startsWith("--cwd=")) cwd = word.slice("--cwd=".length);
  }
  startGitStatus(projectRoot(realOr(resolve(cwd ?? process.cwd()))));
}

/**
 * Opens the connection a new session's first model request will use (its TCP and TLS handshakes,
 * and Bun's HTTP thread) while the session is made and its system prompt read: the model named by
 * `--model` or config.yaml's `model`, when it is one of config.yaml's connections. Not through a
 * proxy (HTTP_PROXY, HTTPS_PROXY): the request goes to it, not to the server.
 */
export function preconnectModel(connections: Readonly<Record<string, { base_url: string }>>, ref: string | null | undefined, env = process.env): void {
  const slash = ref?.indexOf("/") ?? -1;
  if (!ref || slash <= 0) return;
  const connection = Object.hasOwn(connections, ref.slice(0, slash)) ? connections[ref.slice(0, slash)] : undefined;
  if (!connection || !URL.canParse(connection.base_url)) return;
  const url = new URL(connection.base_url);
  const proxies = url.protocol === "https:" ? ["HTTPS_PROXY", "https_proxy"] : ["HTTP_PROXY", "http_proxy"];
  if (proxies.some((name) => env[name])) return;
  if (url.protocol === "http:" || url.protocol === "https:") fetch.preconnect(url.origin);
}
