/**
 * A markdown link whose text reads as an address other than where it leads (`[https://bank.example](https://evil.example)`):
 * a terminal that shows links (OSC 8) would show the text alone, and the person would click believing it.
 */

/** A link's text that reads as an address: a scheme and `//`, `www.`, or a host name with a dot (and maybe a path). */
const ADDRESS = /^(?:[a-z][a-z0-9+.-]*:\/\/\S+|www\.\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/:?#]\S*)?)$/i;

/** Whether a link's text (as written, markdown and all) names an address other than its target. */
export function misleadingLink(text: string, href: string): boolean {
  const shown = text.replace(/[`*_~<>]/g, "").trim();
  if (!ADDRESS.test(shown)) return false;
  return comparable(shown) !== comparable(href);
}

/** An address without its scheme, `www.`, case of its host, or a trailing slash: two ways of writing one place compare equal. */
function comparable(address: string): string {
  const bare = address.trim().replace(/^(?:[a-z][a-z0-9+.-]*:\/\/|mailto:)/i, "").replace(/^www\./i, "");
  const slash = bare.search(/[/?#]/);
  const host = slash < 0 ? bare : bare.slice(0, slash);
  const rest = slash < 0 ? "" : bare.slice(slash);
  return `${host.toLowerCase()}${rest}`.replace(/\/+$/, "");
}
