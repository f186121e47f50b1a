import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandLine, type SimpleCommand } from "../../src/engine/command-line.ts";

/** A command as the table writes it: its words, then assignments and redirections where it has any. */
type Shown = { words: string[]; assignments?: string[]; redirects?: string[]; dynamic?: string[] };

function shown(command: SimpleCommand): Shown {
  return {
    words: command.words.map((w) => w.text),
    ...(command.assignments.length ? { assignments: command.assignments } : {}),
    ...(command.redirects.length ? { redirects: command.redirects.map((r) => `${r.fd ?? ""}${r.op}${r.target.text}`) } : {}),
    ...(command.words.some((w) => !w.literal) ? { dynamic: command.words.filter((w) => !w.literal).map((w) => w.text) } : {}),
  };
}

const commands = (line: string) => {
  const parsed = parseCommandLine(line);
  if (parsed.kind !== "commands") return parsed;
  return { commands: parsed.commands.map(shown), ...(parsed.grouped ? { grouped: true } : {}) };
};

describe("reading a command line", () => {
  const table: [string, Shown[]][] = [
    ["npm test", [{ words: ["npm", "test"] }]],
    ["  git   status  ", [{ words: ["git", "status"] }]],
    ["cd pkg && npm test", [{ words: ["cd", "pkg"] }, { words: ["npm", "test"] }]],
    ["a || b; c | d & e |& f", [{ words: ["a"] }, { words: ["b"] }, { words: ["c"] }, { words: ["d"] }, { words: ["e"] }, { words: ["f"] }]],
    ["a\nb\n\nc", [{ words: ["a"] }, { words: ["b"] }, { words: ["c"] }]],
    ["echo 'a b' \"c d\" e\\ f", [{ words: ["echo", "a b", "c d", "e f"] }]],
    ["echo 'it''s' \"say \\\"hi\\\"\" \\$HOME", [{ words: ["echo", "its", 'say "hi"', "$HOME"] }]],
    ["'git' st\"at\"us", [{ words: ["git", "status"] }]],
    ["echo a;b", [{ words: ["echo", "a"] }, { words: ["b"] }]],
    ["echo 'a;b' \"c&&d\"", [{ words: ["echo", "a;b", "c&&d"] }]],
    ["echo hi > out.txt", [{ words: ["echo", "hi"], redirects: [">out.txt"] }]],
    ["echo hi>>out.txt", [{ words: ["echo", "hi"], redirects: [">>out.txt"] }]],
    ["npm test 2>&1 | tail", [{ words: ["npm", "test"], redirects: ["2>&1"] }, { words: ["tail"] }]],
    ["cmd &> all.log", [{ words: ["cmd"], redirects: ["&>all.log"] }]],
    ["cmd >| f 2>/dev/null <in.txt", [{ words: ["cmd"], redirects: [">|f", "2>/dev/null", "<in.txt"] }]],
    ["echo a2>x", [{ words: ["echo", "a2"], redirects: [">x"] }]],
    ["> out echo hi", [{ words: ["echo", "hi"], redirects: [">out"] }]],
    ["cat <<< 'some text'", [{ words: ["cat"], redirects: ["<<<some text"] }]],
    ["cat <<EOF > f\nline $HOME\nEOF\nls", [{ words: ["cat"], redirects: ["<<EOF", ">f"] }, { words: ["ls"] }]],
    ["cat <<'EOF'\n$(not run)\nEOF", [{ words: ["cat"], redirects: ["<<EOF"] }]],
    ["cat <<-\"END\"\n\t`quoted`\n\tEND\necho done", [{ words: ["cat"], redirects: ["<<-END"] }, { words: ["echo", "done"] }]],
    ["CI=1 npm test", [{ words: ["npm", "test"], assignments: ["CI=1"] }]],
    ["A=1 B+=2 C[0]=3 cmd D=4", [{ words: ["cmd", "D=4"], assignments: ["A=1", "B+=2", "C[0]=3"] }]],
    ['"A=1" cmd', [{ words: ["A=1", "cmd"] }]],
    ["echo $HOME ${USER} $1 $? \"$PWD\"", [{ words: ["echo", "$HOME", "${USER}", "$1", "$?", "$PWD"], dynamic: ["$HOME", "${USER}", "$1", "$?", "$PWD"] }]],
    ["ls *.ts ~/x {a,b}", [{ words: ["ls", "*.ts", "~/x", "{a,b}"], dynamic: ["*.ts", "~/x", "{a,b}"] }]],
    ["ls '*.ts' \\*", [{ words: ["ls", "*.ts", "*"] }]],
    ["echo $'\\x41'", [{ words: ["echo", "$\\x41"], dynamic: ["$\\x41"] }]],
    ["echo hi # a comment; rm -rf x", [{ words: ["echo", "hi"] }]],
    ["echo a#b", [{ words: ["echo", "a#b"] }]],
    ["npm \\\n  test", [{ words: ["npm", "test"] }]],
    ["echo $ costs", [{ words: ["echo", "$", "costs"] }]],
  ];
  for (const [line, expected] of table) {
    test(JSON.stringify(line), () => {
      expect(commands(line)).toEqual({ commands: expected });
    });
  }

  test("a subshell is read, and marked grouped", () => {
    expect(commands("(cd pkg && npm test) > log")).toEqual({
      commands: [{ words: ["cd", "pkg"] }, { words: ["npm", "test"] }, { words: [], redirects: [">log"] }],
      grouped: true,
    });
  });

  test("substitutions stop the reading", () => {
    for (const line of [
      "echo $(id)",
      "echo `id`",
      'echo "a $(id) b"',
      'echo "`id`"',
      "echo $((1 + 2))",
      "echo $[1 + 2]",
      "diff <(ls a) b",
      "tee >(cat)",
      "echo ${x:-$(id)}",
      "echo ${x@P}",
      "echo ${!name}",
      "echo ${a[$i]}",
      "cat <<EOF\n$(id)\nEOF",
      "cat <<EOF\n`id`\nEOF",
    ]) {
      expect({ line, parsed: parseCommandLine(line) }).toEqual({ line, parsed: { kind: "substitutes" } });
    }
  });

  test("what cannot be read for certain is unreadable", () => {
    for (const line of ["echo 'open", 'echo "open', "f() { ls; }", "echo )", "(ls", "cat <<EOF\nno end", "case x in a) ls;; esac", "echo >", "a=(1 2)"]) {
      expect({ line, kind: parseCommandLine(line).kind }).toEqual({ line, kind: "unreadable" });
    }
  });
});

/** Whether real bash, running the line in an empty directory, created ./marker. */
function bashTouches(line: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), "lembas-bash-"));
  try {
    Bun.spawnSync(["bash", "-c", line], { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    return existsSync(join(dir, "marker"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the parser says the line may run touch: it names it, or cannot tell what runs. */
function parserSeesTouch(line: string): boolean {
  const parsed = parseCommandLine(line);
  if (parsed.kind !== "commands") return true;
  return parsed.commands.some((c) => c.words[0]?.text === "touch");
}

describe("a backslash-newline, removed where bash removes it", () => {
  const lines: [string, boolean][] = [
    ["cat <<EOF\nEO\\\nF\ntouch marker\nEOF", true],
    ["cat <<EOF\n$\\\n(touch marker)\nEOF", true],
    ["cat <<'EOF'\nEO\\\nF\ntouch marker\nEOF", false],
    ["cat <<'EOF'\n$\\\n(touch marker)\nEOF", false],
    ["cat <<E\\\nOF\nhi\nEOF\ntouch marker", true],
    ["cat <\\\n<EOF\ntouch marker\nEOF", false],
    ["cat <<EOF\nEO\\\\\nF\ntouch marker\nEOF", false],
    ['echo "$\\\n(touch marker)"', true],
    ["echo $\\\n(touch marker)", true],
    ["echo 'a\\\n'; echo b", false],
    ["echo a # note \\\ntouch marker", true],
    ["echo a \\\n# note\ntouch marker", true],
    ["to\\\nuch marker", true],
    ["echo \"it's \\\n\" ; touch marker", true],
    ["echo 'a\"b' \\\n touch marker", false],
    ["echo $'a\\'' \\\n; touch marker", true],
    ["cat <<\"E\\\nOF\"\nhi\nEOF\ntouch marker", true],
  ];
  for (const [line, runs] of lines) {
    test(`${JSON.stringify(line)}: bash ${runs ? "runs" : "does not run"} touch, and the parser agrees`, () => {
      expect(bashTouches(line)).toBe(runs);
      expect(parserSeesTouch(line)).toBe(runs);
    });
  }

  test("a $ before a quote or a backslash is not literal: $\\+newline+'…' is $'…' to bash", () => {
    const parsed = parseCommandLine("echo hi > $\\\n'\\x2e\\x2e/pwG'");
    expect(parsed.kind === "commands" && parsed.commands[0]?.redirects[0]?.target.literal).toBe(false);
    for (const line of ['echo "$\'"', "echo $\\x", 'echo $"x"']) {
      const words = parseCommandLine(line);
      expect({ line, literal: words.kind === "commands" && words.commands[0]?.words[1]?.literal }).toEqual({ line, literal: false });
    }
  });
});
