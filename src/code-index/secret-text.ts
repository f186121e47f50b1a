import { looksSecret } from "../tools/environment.ts";

/**
 * Shapes of credentials whatever they are assigned to: a private key block, a cloud provider's key
 * (AWS, Google), a forge's or a registry's token (GitHub, GitLab, npm, PyPI, Slack, Stripe), a
 * model provider's key (`sk-…`), a service account's JSON, and a registry's auth line (`.npmrc`'s).
 */
const TOKEN_SHAPES = [
  /-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----/,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,})\b/,
  /\b(npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{40,})\b/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\b[sr]k_live_[A-Za-z0-9]{16,}/,
  /\bsk-(ant-|proj-)?[A-Za-z0-9_-]{20,}/,
  /"type"\s*:\s*"service_account"/,
  /_auth(Token)?\s*=\s*\S{8,}/,
];

/** `name = "literal"` or `name: 'literal'` (code, JSON, YAML): a quoted value of 8 or more characters with no space. */
const QUOTED = /([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*[:=]\s*["'`]([^"'`\s]{8,})["'`]/g;
/** `NAME=value` alone on its line (an env file, an ini, a shell script). */
const BARE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*([^\s"'`#]{8,})\s*$/gm;
/** A value that names a secret rather than holds it: a variable, a template's slot. */
const PLACEHOLDER = /^[$<{%]|^(process\.env|os\.environ|env\.)|\$\{/;

/**
 * Whether a text looks like it holds a credential: a known token shape, or a literal value given
 * to a name that says secret (the names `looksSecret` keeps out of a tool's environment: …_TOKEN,
 * …_KEY, …_SECRET, anything with PASSWORD). The code index sends no such text to the embedding
 * endpoint and shows no such line.
 */
export function holdsSecret(text: string): boolean {
  if (TOKEN_SHAPES.some((shape) => shape.test(text))) return true;
  for (const pattern of [QUOTED, BARE]) {
    for (const [, name = "", value = ""] of text.matchAll(pattern)) {
      if (!PLACEHOLDER.test(value) && looksSecret(envName(name))) return true;
    }
  }
  return false;
}

/** `apiKey`, `api-key`, `db.password` as an environment variable's name: `API_KEY`, `DB_PASSWORD`. */
function envName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase();
}
