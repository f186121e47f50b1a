/**
 * A JSON column's text read back: undefined when it is not JSON (a disk error, a hand edit, a bug
 * of an older version). Every reader's schema refuses undefined as it refuses a value of the wrong
 * shape, so one broken row is skipped as such a row is, and never takes its session down with it.
 */
export function readJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
