import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** What fetch may reach besides public addresses: every private one, or these hosts' (config `fetch.allow_private`). */
export type PrivateRule = boolean | readonly string[];

/** A host's addresses, as the system resolver gives them. */
export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Why a host may not be fetched (it is, or resolves to, a loopback, link-local or private
 * address, or one of this device's own), or null when every address it has is public or the
 * person allowed it. A host that does not resolve is a sentence too.
 */
export async function privateAddressProblem(host: string, allow: PrivateRule, resolve: Resolver = systemResolver): Promise<string | null> {
  const checked = await checkedAddress(host, allow, resolve);
  return "problem" in checked ? checked.problem : null;
}

/**
 * The address to connect to for HOST (an IPv4 one first, where there is one), found public or the
 * host allowed; or the problem. The request must go to this address: the name resolved again may
 * lead elsewhere (DNS rebinding).
 */
export async function checkedAddress(host: string, allow: PrivateRule, resolve: Resolver = systemResolver): Promise<{ address: string } | { problem: string }> {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const allowed = allow === true || (Array.isArray(allow) && allow.some((h) => h.toLowerCase() === bare));
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : await resolve(bare);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return { problem: `${host} could not be resolved to an address.` };
  const own = allowed ? new Set<string>() : ownAddresses();
  const blocked = allowed ? undefined : addresses.find((a) => isPrivateAddress(a) || own.has(canonical(a)));
  if (!blocked) return { address: addresses.find((a) => isIP(a) === 4) ?? (addresses[0] as string) };
  const how = blocked === bare ? `${host} is` : `${host} resolves to ${blocked},`;
  const what = isPrivateAddress(blocked) ? "a loopback, link-local or private address" : "an address of this device's own";
  return { problem: `${how} ${what}, which fetch does not reach unless the person allows it (config fetch.allow_private).` };
}

/**
 * The addresses of this device's interfaces, looked at every time (a VPN comes up, DHCP moves): a
 * public one leads to the person's own services as surely as 127.0.0.1 does.
 */
function ownAddresses(): Set<string> {
  return new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => canonical(a.address))));
}

/** One spelling per address: IPv6 as its eight words (an IPv4-mapped one as the IPv4), a zone id dropped. */
function canonical(address: string): string {
  if (isIP(address) !== 6) return address;
  const words = expandV6(address.toLowerCase());
  if (!words) return address.toLowerCase();
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    const high = words[6] ?? 0;
    const low = words[7] ?? 0;
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return words.map((w) => w.toString(16)).join(":");
}

/**
 * Loopback, unspecified, private (RFC 1918, unique local, the old site-local fec0::/10), link-local,
 * shared (100.64.0.0/10: carrier NAT, and Tailscale's addresses, private to the person), multicast,
 * broadcast, and the IPv6 forms that carry such an IPv4 address (mapped, compatible, NAT64).
 */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return privateV4(address);
  if (kind === 6) return privateV6(address.toLowerCase());
  return true;
}

function privateV4(address: string): boolean {
  const [a = 0, b = 0, c = 0, d = 0] = address.split(".").map(Number);
  if (a === 0 || a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)) return true;
  const shared = a === 100 && b >= 64 && b <= 127;
  const multicast = a >= 224 && a <= 239;
  const broadcast = a === 255 && b === 255 && c === 255 && d === 255;
  return shared || multicast || broadcast;
}

function privateV6(address: string): boolean {
  const words = expandV6(address);
  if (!words) return true;
  if (words.slice(0, 7).every((w) => w === 0) && (words[7] === 0 || words[7] === 1)) return true;
  const first = words[0] ?? 0;
  // Unique local, link-local, site-local (deprecated, still routed inside some networks), multicast.
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0 || (first & 0xff00) === 0xff00) return true;
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated) and 64:ff9b::a.b.c.d (NAT64, RFC 6052) carry an IPv4 address.
  const mapped = words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || words[5] === 0);
  const nat64 = first === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0);
  if (mapped || nat64) {
    const high = words[6] ?? 0;
    const low = words[7] ?? 0;
    return privateV4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return false;
}

/** The eight 16-bit words of an IPv6 address (a zone id dropped), or null when it is not one. */
function expandV6(address: string): number[] | null {
  let text = address.split("%")[0] ?? "";
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return null;
  const words = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right].map((w) => Number.parseInt(w, 16));
  return words.some((w) => Number.isNaN(w)) ? null : words;
}
