/**
 * Where a YAML text stops reading as YAML, 1-based, found by parsing its prefixes: Bun's parser
 * says what is wrong but not where. The line is the first after the longest run of whole lines
 * that parses; the column the first character of that line at which it no longer does.
 */
export function yamlErrorAt(text: string): { line: number; column: number } {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let good = lines.length - 1;
  while (good > 0 && !parses(lines.slice(0, good).join("\n"))) good--;
  const before = lines.slice(0, good).map((l) => `${l}\n`).join("");
  const bad = lines[good] ?? "";
  for (let column = 1; column <= bad.length; column++) {
    if (!parses(before + bad.slice(0, column))) return { line: good + 1, column };
  }
  return { line: good + 1, column: 1 };
}

function parses(text: string): boolean {
  try {
    Bun.YAML.parse(text);
    return true;
  } catch {
    return false;
  }
}
