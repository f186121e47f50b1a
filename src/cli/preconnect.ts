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
