import { basename } from "node:path";
import { parseCommandLine } from "./command-line.ts";

/**
 * The commands a line runs, as deny and ask rules judge them: each simple command as written, and
 * the command behind it where a wrapper runs one (`command`, `env`, `exec`, `nice`, `timeout`,
 * `nohup`, `sudo`, `xargs` …), by the name of its program (`/bin/rm` is `rm`), inside `sh -c` /
 * `bash -c` and `eval`, and what `find` runs (`-exec rm`, and `-delete` as `rm`). A deny is not a
 * sandbox: a program can still run another in ways no line shows (a script, `python -c`).
 */
export function ruleCommands(line: string): string[] {
  return [...new Set(commandsOf(line, 0))];
}

/** How deep `sh -c "eval 'bash -c …'"` is read before the rest is left to the line as written. */
const MAX_DEPTH = 4;

function commandsOf(line: string, depth: number): string[] {
  if (depth > MAX_DEPTH) return [];
  const parsed = parseCommandLine(line, { substitutions: true });
  if (parsed.kind !== "commands") return [];
  return parsed.commands.filter((c) => c.words.length > 0).flatMap((c) => behind(c.words.map((w) => w.text), depth));
}

/** Programs that run the command their arguments name, and their options that take a value. */
const WRAPPERS: Record<string, { values: string; long?: readonly string[]; then?: number }> = {
  command: { values: "" },
  builtin: { values: "" },
  exec: { values: "a" },
  env: { values: "uCS", long: ["unset", "chdir", "split-string"] },
  nice: { values: "n", long: ["adjustment"] },
  ionice: { values: "cnp", long: ["class", "classdata", "pid"] },
  // timeout's first operand is the duration; the command follows it.
  timeout: { values: "sk", long: ["signal", "kill-after"], then: 1 },
  nohup: { values: "" },
  setsid: { values: "" },
  stdbuf: { values: "ioe", long: ["input", "output", "error"] },
  time: { values: "fo", long: ["format", "output"] },
  sudo: { values: "ugChpUrtDRT", long: ["user", "group", "close-from", "host", "prompt", "other-user", "role", "type", "chdir", "chroot", "command-timeout"] },
  doas: { values: "uC" },
  xargs: { values: "IdEeLlnPsa", long: ["arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"] },
};

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"]);
const NAME_EQUALS = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A simple command's words, joined as rules read them, with every command found behind it. */
function behind(words: readonly string[], depth: number): string[] {
  const out = [words.join(" ")];
  const [first = "", ...rest] = words;
  const name = first.includes("/") ? basename(first) : first;
  if (name !== first) out.push([name, ...rest].join(" "));
  if (name === "eval") return [...out, ...commandsOf(rest.join(" "), depth + 1)];
  if (SHELLS.has(name)) return [...out, ...shellScript(rest, depth)];
  if (name === "find") return [...out, ...findRuns(rest, depth)];
  const wrapper = WRAPPERS[name];
  if (!wrapper) return out;
  // `command -v rm` only says where rm is.
  if ((name === "command" || name === "builtin") && rest.some((w) => w === "-v" || w === "-V")) return out;
  const inner = afterOptions(name, rest, wrapper, depth);
  return inner.length > 0 ? [...out, ...inner] : out;
}

/** The command a wrapper runs: its words after the wrapper's options (and env's NAME=value, timeout's duration). */
function afterOptions(name: string, words: readonly string[], wrapper: (typeof WRAPPERS)[string], depth: number): string[] {
  const found: string[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i] ?? "";
    if (word === "--") {
      i++;
      break;
    }
    if (word.startsWith("--")) {
      const [long = "", value] = word.slice(2).split("=", 2);
      if (name === "env" && long === "split-string") found.push(...commandsOf(value ?? words[i + 1] ?? "", depth + 1));
      i += value === undefined && wrapper.long?.includes(long) ? 2 : 1;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      const taken = [...word.slice(1)].findIndex((c) => wrapper.values.includes(c));
      if (taken >= 0) {
        const attached = word.slice(taken + 2);
        const value = attached !== "" ? attached : (words[i + 1] ?? "");
        if (name === "env" && word[taken + 1] === "S") found.push(...commandsOf(value, depth + 1));
        i += attached !== "" ? 1 : 2;
      } else i++;
      continue;
    }
    if (name === "env" && (word === "-" || NAME_EQUALS.test(word))) {
      i++;
      continue;
    }
    break;
  }
  i += wrapper.then ?? 0;
  const command = words.slice(i);
  return command.length > 0 ? [...found, ...behind(command, depth + 1)] : found;
}

/** What `sh -c 'SCRIPT'` (or `-ec`, `-lc` …) runs; nothing for a shell reading a file or stdin. */
function shellScript(words: readonly string[], depth: number): string[] {
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (!word.startsWith("-") || word.startsWith("--")) return [];
    if (word.slice(1).includes("c")) return commandsOf(words[i + 1] ?? "", depth + 1);
  }
  return [];
}

/** What find runs: each `-exec`/`-execdir`/`-ok`/`-okdir` command, and `-delete` as rm does. */
function findRuns(words: readonly string[], depth: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (word === "-delete") out.push("rm");
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(word)) continue;
    const end = words.findIndex((w, j) => j > i && (w === ";" || w === "+"));
    const command = words.slice(i + 1, end < 0 ? words.length : end);
    if (command.length > 0) out.push(...behind(command, depth + 1));
    i = end < 0 ? words.length : end;
  }
  return out;
}
