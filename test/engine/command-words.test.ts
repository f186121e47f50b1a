import { describe, expect, test } from "bun:test";
import { parseCommandLine } from "../../src/engine/command-line.ts";
import { expandWord, literalWord } from "../../src/engine/command-words.ts";

const HOME = "/home/p";

/** What the judge makes of each word of `printf '%s\n' WORDS`, HOME known and nothing else. */
function judged(words: string): string[] | null {
  const parsed = parseCommandLine(`printf '%s\\n' ${words}`);
  if (parsed.kind !== "commands") throw new Error(`not read: ${words}`);
  const out: string[] = [];
  for (const word of parsed.commands[0]?.words.slice(2) ?? []) {
    const expanded = expandWord(word, (name) => (name === "HOME" ? [literalWord(HOME)] : null));
    if (expanded === null) return null;
    out.push(...expanded.map((w) => w.text));
  }
  return out;
}

/** What bash prints for the same words, in an empty environment but HOME. */
function bash(words: string): string[] {
  const run = Bun.spawnSync(["bash", "-c", `printf '%s\\n' ${words}`], { cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME }, stdout: "pipe" });
  return run.stdout.toString().split("\n").slice(0, -1);
}

describe("~, $HOME and braces expand as bash expands them", () => {
  for (const words of [
    "~/.ssh/id_rsa",
    "~",
    "$HOME/.bashrc",
    '"${HOME}/.config"',
    "'~/x' \"~\"/x ~\"/x\"",
    "a=~/b x:~/c a=x:~/d --x=~/e",
    "src/{a,b}/index.ts",
    "{a,{b,c}}d",
    "a{b}c{d,e}",
    "{1..3} {01..10..3} {a..c} {c..a}",
    "{x,\"y,z\"}",
    "\\{a,b} {a,b",
    "~/{.ssh,.gnupg}",
    "{~,x}/y",
    "$'\\x2e\\x65nv' $'a\\tb'",
  ]) {
    test(words, () => {
      expect(judged(words)).toEqual(bash(words));
    });
  }

  test("what only running tells is unknown", () => {
    for (const words of ["$FILE", "${OTHER}/x", "~root/.ssh", "~+/x", "$(id)", "x{1..100}"]) {
      const parsed = parseCommandLine(`printf '%s\\n' ${words}`, { substitutions: true });
      const word = parsed.kind === "commands" ? parsed.commands.at(-1)?.words[2] : undefined;
      expect({ words, expanded: word ? expandWord(word, () => null) : "unread" }).toEqual({ words, expanded: null });
    }
  });
});

describe("reading what substitutions run", () => {
  test("their commands are listed before the one that holds them, their words unknown", () => {
    const parsed = parseCommandLine('cat "$(echo ~/.ssh/id_rsa)" `ls x` <(sort a) $((1 + 2))', { substitutions: true });
    expect(parsed.kind).toBe("commands");
    const commands = parsed.kind === "commands" ? parsed.commands : [];
    expect(commands.map((c) => c.words.map((w) => w.text))).toEqual([["echo", "~/.ssh/id_rsa"], ["ls", "x"], ["sort", "a"], ["cat", "$(…)", "`…`", "<(…)", "$((…))"]]);
    expect(commands.at(-1)?.words.slice(1).every((w) => !w.literal)).toBe(true);
  });

  test("an unquoted here-document's substitutions are read; what cannot be read still stops", () => {
    const parsed = parseCommandLine("cat > x.sh <<EOF\nrm $(cat ~/.ssh/id_rsa)\nEOF", { substitutions: true });
    expect(parsed.kind === "commands" ? parsed.commands.map((c) => c.words[0]?.text) : parsed).toEqual(["cat", "cat"]);
    for (const line of ["echo ${x:-$(id)}", "echo $[1]", "echo $((a[$(id)]))", "echo $(ls"]) {
      expect({ line, kind: parseCommandLine(line, { substitutions: true }).kind }).not.toEqual({ line, kind: "commands" });
    }
  });
});
