import { isIP } from "node:net";
import { checkServerIdentity } from "node:tls";
import { untilAborted } from "../until-aborted.ts";
import { checkedAddress, type PrivateRule, type Resolver } from "./address-guard.ts";

/** A response read as far as the cap: where it ended up, its type and the bytes read. */
export type Page = { url: string; status: number; contentType: string; bytes: Uint8Array; cut: boolean };

export type GetOptions = {
  allowPrivate: PrivateRule;
  maxBytes: number;
  maxRedirects: number;
  signal: AbortSignal;
  /** How host names are resolved; the system's by default. */
  resolve?: Resolver;
};

const ACCEPT = "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1";

/**
 * GETs an http(s) URL, following redirects by hand so that every hop is checked again (scheme and
 * address; one to another host is not followed but said), and reads at most `maxBytes` of the body. `body` decides, from the headers, whether
 * the body is worth reading: a sentence instead stops there.
 */
export async function guardedGet(start: URL, opts: GetOptions, body: (contentType: string, url: string) => string | null): Promise<Page | { problem: string }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") return { problem: `${url.href} is not an http(s) URL: fetch reads only web pages.` };
    // A name lookup takes no signal, and may take long.
    const checked = await untilAborted(checkedAddress(url.hostname, opts.allowPrivate, opts.resolve), opts.signal, () => {
      throw opts.signal.reason;
    });
    if ("problem" in checked) return { problem: hop === 0 ? checked.problem : `${start.href} redirected to ${url.href}: ${checked.problem}` };
    // The person is asked per host before a fetch: a redirect to another host is theirs to allow too.
    if (url.host !== start.host) return { problem: otherHost(start, url) };
    const response = await fetch(viaProxy(url) ? url : pinned(url, checked.address), {
      redirect: "manual",
      signal: opts.signal,
      headers: { accept: ACCEPT, "user-agent": "lembas", host: url.host },
      ...(viaProxy(url) ? {} : tlsFor(url)),
    });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= opts.maxRedirects) return { problem: `${start.href} redirected more than ${opts.maxRedirects} times.` };
      url = new URL(location, url);
      continue;
    }
    const contentType = response.headers.get("content-type") ?? "";
    const refused = body(contentType, url.href);
    if (refused) {
      await response.body?.cancel();
      return { problem: refused };
    }
    const { bytes, cut } = await readCapped(response, opts.maxBytes);
    return { url: url.href, status: response.status, contentType, bytes, cut };
  }
}

/**
 * Whether fetch sends the request to the person's proxy (HTTP_PROXY, HTTPS_PROXY): the proxy then
 * resolves the name, and is asked for the name, not an address (it may filter by name, or NO_PROXY
 * list it); the guard has checked what the name resolves to here.
 */
function viaProxy(url: URL): boolean {
  const names = url.protocol === "https:" ? ["HTTPS_PROXY", "https_proxy"] : ["HTTP_PROXY", "http_proxy"];
  return names.some((name) => (process.env[name] ?? "") !== "");
}

/** The URL with its host name replaced by the address checked (a name only: an address is itself). */
function pinned(url: URL, address: string): URL {
  if (isIP(url.hostname.replace(/^\[|\]$/g, ""))) return url;
  const to = new URL(url);
  to.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return to;
}

/** Over https to a pinned address, the server is still asked for, and checked as, the host name. */
function tlsFor(url: URL): { tls?: { serverName: string; checkServerIdentity: typeof checkServerIdentity } } {
  if (url.protocol !== "https:" || isIP(url.hostname.replace(/^\[|\]$/g, ""))) return {};
  const name = url.hostname;
  return { tls: { serverName: name, checkServerIdentity: (_address, cert) => checkServerIdentity(name, cert) } };
}

function otherHost(start: URL, to: URL): string {
  return `${start.href} redirected to ${to.href}, on another host, which was not fetched: fetch ${to.href} itself to follow it (a host not allowed for the session asks the person).`;
}

/** The body's first `maxBytes`, and whether there was more (reading stops there). */
async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(0), cut: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), cut: false };
    const room = maxBytes - total;
    if (value.length > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks), cut: true };
    }
    chunks.push(value);
    total += value.length;
  }
}
