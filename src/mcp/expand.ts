/** What a `${…}` reference needs: the variables it reads. */
export type Vars = Record<string, string | undefined>;

/** A text with its `${VAR}` and `${VAR:-default}` references replaced, or the variables it names that are not set. */
export type Expanded = { ok: true; text: string } | { ok: false; missing: string[] };

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Claude Code's expansion of `.mcp.json`: `${VAR}` is the variable's value, `${VAR:-default}` the
 * default when VAR is unset or empty; a `${VAR}` with no default and no value is missing (the
 * server is not started, and says which). Anything else, a bare `$VAR` too, is kept as written.
 */
export function expandVars(text: string, vars: Vars): Expanded {
  const missing: string[] = [];
  const expanded = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const value = vars[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    if (value === "") return "";
    missing.push(name);
    return whole;
  });
  return missing.length > 0 ? { ok: false, missing: [...new Set(missing)] } : { ok: true, text: expanded };
}

/** The names of the variables a text refers to (for the approval question: what the servers would read). */
export function referencedVars(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((m) => m[1] as string))];
}

/** Every string of a record expanded; the first missing variables make the whole record fail. */
export function expandRecord(record: Record<string, string>, vars: Vars): { ok: true; value: Record<string, string> } | { ok: false; missing: string[] } {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    const done = expandVars(value, vars);
    if (done.ok) out[key] = done.text;
    else missing.push(...done.missing);
  }
  return missing.length > 0 ? { ok: false, missing: [...new Set(missing)] } : { ok: true, value: out };
}
