import { basename } from "node:path";
import type { Word } from "./command-line.ts";
import { listedOptions } from "./command-option-lists.ts";
import { type OptionList, optionList, scanOptions } from "./command-options.ts";
import { literalWord } from "./command-words.ts";

/**
 * Where a program writes, read from its arguments as it reads them: the paths it creates, changes
 * or removes. Each is judged as a redirection's target would be (in the project, off protected
 * paths). A writer's options are also all an "always" key for it covers.
 */

/** Which operands a writer writes to: every one, the last (cp a b dir/), the one at an index, or none (only its options say). */
type Dest = "all" | "last" | number | "options";

type Writer = { options: OptionList; dest: Dest };

const writer = (options: string, dest: Dest): Writer => ({ options: optionList(options), dest });

const OWNERS = "-c --changes -f --silent --quiet -v --verbose --dereference -h --no-dereference --from= --no-preserve-root --preserve-root --reference= -R --recursive -H -L -P";

const COPY_COMMON = "-b --backup?= -f --force -i --interactive -S= --suffix= -t=w --target-directory=w -T --no-target-directory -v --verbose -Z --context?= --debug";

const WRITERS: Record<string, Writer> = {
  tee: writer("-a --append -i --ignore-interrupts -p --output-error?=", "all"),
  touch: writer("-a -c --no-create -d= --date= -f -h --no-dereference -m -r= --reference= -t= --time=", "all"),
  mkdir: writer("-m= --mode= -p --parents -v --verbose -Z --context?=", "all"),
  rmdir: writer("-p --parents -v --verbose --ignore-fail-on-non-empty", "all"),
  unlink: writer("", "all"),
  shred: writer("-f --force -n= --iterations= --random-source= -s= --size= -u --remove?= -v --verbose -x --exact -z --zero", "all"),
  mkfifo: writer("-m= --mode= -Z --context?=", "all"),
  mknod: writer("-m= --mode= -Z --context?=", "all"),
  truncate: writer("-c --no-create -o --io-blocks -r= --reference= -s= --size=", "all"),
  // A mode may start with a dash (chmod -x f): its letters are read as options would be.
  chmod: writer("-c --changes -f --silent --quiet -v --verbose --no-preserve-root --preserve-root --reference= -R --recursive -r -w -x -X -s -t", "all"),
  chown: writer(OWNERS, "all"),
  chgrp: writer(OWNERS, "all"),
  cp: writer(
    `${COPY_COMMON} -a --archive --attributes-only --copy-contents -d -H -l --link -L --dereference -n --no-clobber -P ` +
      "--no-dereference -p --preserve?= --no-preserve= --parents -R -r --recursive --reflink?= --remove-destination --sparse= " +
      "--strip-trailing-slashes -s --symbolic-link -u --update?= -x --one-file-system --keep-directory-symlink",
    "last",
  ),
  mv: writer(`${COPY_COMMON} -n --no-clobber --no-copy --strip-trailing-slashes -u --update?= --exchange`, "last"),
  ln: writer(`${COPY_COMMON} -d -F --directory -L --logical -n --no-dereference -P --physical -r --relative -s --symbolic`, "last"),
  install: writer(
    `${COPY_COMMON} -C --compare -c -d --directory -D -g= --group= -m= --mode= -o= --owner= -p --preserve-timestamps -s --strip`,
    "last",
  ),
  uniq: writer("-c --count -d --repeated -D -f= --skip-fields= -i --ignore-case -s= --skip-chars= -u --unique -w= --check-chars= -z --zero-terminated --group?= --all-repeated?=", 1),
  split: writer("-a= --suffix-length= --additional-suffix= -b= --bytes= -C= --line-bytes= -d --numeric-suffixes?= -x --hex-suffixes?= -e --elide-empty-files -l= --lines= -n= --number= -t= --separator= --verbose -u --unbuffered", 1),
  // Left out: -T/-TT and --unzip-command, which run a program to test the archive.
  zip: writer("-q -v -j -u -f -d -D -X -y -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -x= -i= -r -R --quiet --verbose --junk-paths --update --freshen --delete --recurse-paths", 0),
  unzip: writer("-d=w -o -n -q -qq -j -l -t -v -x= -p -a -C -L -u -f -X -K -O= -P=", "options"),
  // Left out: -S (the program it runs for ssh), -o and -F (ssh's options: a ProxyCommand runs).
  scp: writer("-p -q -C -P= -v -4 -6 -B -O -l= -c= -T -r", "last"),
  // No session key covers rsync (it reads whole trees): this list only tells its operands apart.
  rsync: writer(
    "-a --archive -r --recursive -v --verbose -z --compress -u --update -n --dry-run -P --progress -h --human-readable --delete " +
      "-e= --rsh= --exclude= --include= --exclude-from= --include-from= --filter= -f= --files-from= --chmod= --chown= " +
      "--partial-dir= --backup-dir=w --temp-dir=w -T=w --log-file=w --link-dest= --compare-dest= --copy-dest= --timeout= " +
      "--bwlimit= --port= --password-file= --out-format= --max-size= --min-size= -B= --block-size= --rsync-path=",
    "last",
  ),
};

/** Compressors that replace the file they are given (gzip x writes x.gz), unless they write to stdout. */
const COMPRESSORS = new Set(["gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress"]);

/** The option list of a writer: all an "always" key for it covers. */
export function writerOptions(name: string): OptionList | undefined {
  return WRITERS[name]?.options;
}

export function isWriter(name: string): boolean {
  return name in WRITERS || name === "dd" || name === "tar" || COMPRESSORS.has(name) || IN_PLACE.has(name);
}

/** Editors of files in place with -i: sed's script, perl's, is the first operand unless -e gives it. */
const IN_PLACE = new Set(["sed", "gsed", "perl"]);

/**
 * The paths a command writes to, by its program's name (lower case) and its arguments (expanded);
 * a sentence when its arguments let it write where nothing tells before it runs.
 */
export function writtenPaths(name: string, args: readonly Word[]): Word[] | { unknown: string } {
  if (name === "dd") return args.filter((a) => a.text.startsWith("of=")).map((a) => sliced(a, 3));
  if (name === "tar") return tarWrites(args);
  if (COMPRESSORS.has(name)) {
    const toStdout = args.some((a) => /^-[a-zA-Z0-9]*[ctl]/.test(a.text) || ["--stdout", "--to-stdout", "--test", "--list"].includes(a.text));
    return toStdout ? [] : args.filter((a) => !a.text.startsWith("-"));
  }
  if (IN_PLACE.has(name)) return inPlace(args);
  const spec = WRITERS[name];
  if (!spec) {
    // Programs whose options write where they say (curl -o, sort -o, wget -O).
    const listed = listedOptions(name, null);
    return listed ? scanOptions(args, listed.options, listed.untilOperand).writes : [];
  }
  const scanned = scanOptions(args, spec.options);
  const { operands } = scanned;
  if (spec.dest === "options") return scanned.writes;
  if (spec.dest === "all") return [...scanned.writes, ...operands];
  if (typeof spec.dest === "number") return [...scanned.writes, ...operands.slice(spec.dest, spec.dest + 1)];
  if (name === "install" && args.some((a) => a.text === "-d" || a.text === "--directory")) return operands;
  if (scanned.writes.length > 0) return scanned.writes;
  // ln with one operand makes its link in the directory the line is in.
  if (name === "ln" && operands.length === 1) return operands.map((o) => literalOr(o, basename(o.text)));
  return operands.length >= 2 ? operands.slice(-1) : [];
}

/** The paths a writer removes besides where it writes: mv's sources. */
export function removedPaths(name: string, args: readonly Word[]): Word[] {
  return name === "mv" ? sourcePaths(name, args) : [];
}

/** The operands a writer reads from (cp's sources): all but where it writes. */
export function sourcePaths(name: string, args: readonly Word[]): Word[] {
  const spec = WRITERS[name];
  if (!spec) return args.filter((a) => !a.text.startsWith("-"));
  const scanned = scanOptions(args, spec.options);
  if (scanned.writes.length > 0 || spec.dest === "all" || spec.dest === "options") return scanned.operands;
  if (spec.dest === "last") return scanned.operands.slice(0, -1);
  return scanned.operands.filter((_, k) => k !== spec.dest);
}

function inPlace(args: readonly Word[]): Word[] {
  const edits = args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith("--in-place"));
  if (!edits) return [];
  const scripted = args.some((a) => /^-[a-zA-Z]*[ef]$/.test(a.text) || a.text.startsWith("--expression") || a.text.startsWith("--file"));
  const operands: Word[] = [];
  for (let k = 0; k < args.length; k++) {
    const text = args[k]?.text ?? "";
    if (/^-[a-zA-Z]*[ef]$/.test(text) || text === "--expression" || text === "--file") {
      k++;
      continue;
    }
    if (!text.startsWith("-")) operands.push(args[k] as Word);
  }
  return scripted ? operands : operands.slice(1);
}

/** tar: the archive it creates (c, r, u, A), where it extracts to (-C), and whether its members may go anywhere (-P). */
function tarWrites(args: readonly Word[]): Word[] | { unknown: string } {
  const read = readTar(args);
  if (read.absolute && read.extracts) return { unknown: "tar -P extracts members wherever their names say" };
  const written: Word[] = [];
  if (read.creates && read.file) written.push(read.file);
  if (read.extracts && read.directory) written.push(read.directory);
  return written;
}

/** What a tar line does: its mode, archive, directory and member operands. */
export type TarLine = { creates: boolean; extracts: boolean; absolute: boolean; file?: Word; directory?: Word; operands: Word[] };

const TAR_VALUE_LETTERS = "fbCFgHIKLNTVX";
const TAR_VALUE_LONG = new Set([
  "file", "directory", "exclude", "files-from", "exclude-from", "transform", "xform", "strip-components", "owner", "group", "mode",
  "mtime", "newer", "after-date", "format", "use-compress-program", "to-command", "info-script", "new-volume-script",
  "checkpoint-action", "index-file", "blocking-factor", "label", "warning", "record-size", "tape-length", "starting-file",
]);

export function readTar(args: readonly Word[]): TarLine {
  const line: TarLine = { creates: false, extracts: false, absolute: false, operands: [] };
  const pending: string[] = [];
  const take = (letter: string, value: Word) => {
    if (letter === "f") line.file = value;
    if (letter === "C") line.directory = value;
  };
  const letters = (cluster: string, rest: () => Word | undefined, attached: boolean) => {
    for (let k = 0; k < cluster.length; k++) {
      const letter = cluster[k] ?? "";
      if ("cruA".includes(letter)) line.creates = true;
      if ("xt".includes(letter)) line.extracts = true;
      if (letter === "P") line.absolute = true;
      if (!TAR_VALUE_LETTERS.includes(letter)) continue;
      if (attached && k + 1 < cluster.length) return take(letter, literalOr(undefined, cluster.slice(k + 1)));
      if (attached) {
        const value = rest();
        if (value) take(letter, value);
        return;
      }
      pending.push(letter);
    }
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Word;
    const text = arg.text;
    if (pending.length > 0 && !text.startsWith("-")) {
      take(pending.shift() ?? "", arg);
      continue;
    }
    if (i === 0 && !text.startsWith("-")) {
      letters(text, () => undefined, false);
      continue;
    }
    if (text.startsWith("--")) {
      const at = text.indexOf("=");
      const name = text.slice(2, at === -1 ? undefined : at);
      if (["create", "append", "update", "catenate", "concatenate"].includes(name)) line.creates = true;
      if (["extract", "get", "list"].includes(name)) line.extracts = true;
      if (name === "absolute-names") line.absolute = true;
      if (!TAR_VALUE_LONG.has(name)) continue;
      const value = at === -1 ? args[++i] : sliced(arg, at + 1);
      if (value && name === "file") line.file = value;
      if (value && name === "directory") line.directory = value;
      continue;
    }
    if (text.startsWith("-") && text !== "-") {
      letters(text.slice(1), () => args[++i], true);
      continue;
    }
    line.operands.push(arg);
  }
  return line;
}

function sliced(word: Word, from: number): Word {
  return literalOr(word, word.text.slice(from));
}

/** A word of this text, literal as `like` is (a pattern stays a pattern). */
function literalOr(like: Word | undefined, text: string): Word {
  if (like && !like.literal) return { text, literal: false, parts: [{ kind: "text", text, quoted: false }] };
  return literalWord(text);
}
