import type { Theme } from "./theme.ts";

/**
 * A small highlighter for code blocks in answers: comments, strings, numbers, keywords and
 * capitalised names, by a per-language table. It colours; it never changes the text, so a block
 * reads the same under NO_COLOR.
 */
type Lang = { keywords: Set<string>; line: string[]; block?: [string, string]; quotes: string };

const words = (text: string) => new Set(text.split(" "));

const C_LIKE = "if else for while do switch case break continue return default goto sizeof typedef struct union enum const static void int char long short unsigned signed float double bool true false null";
const JS = "const let var function return if else for while do switch case break continue new delete typeof instanceof in of class extends super this import export from as default async await yield try catch finally throw true false null undefined void type interface enum implements private public protected readonly static get set declare namespace keyof satisfies";
const LANGS: Record<string, Lang> = {
  js: { keywords: words(JS), line: ["//"], block: ["/*", "*/"], quotes: "'\"`" },
  py: { keywords: words("def class return if elif else for while in not and or is None True False import from as with try except finally raise pass break continue lambda yield global nonlocal async await del assert match case self"), line: ["#"], quotes: "'\"" },
  sh: { keywords: words("if then else elif fi for while until do done case esac in function return local export readonly echo set unset shift exit source alias cd test true false"), line: ["#"], quotes: "'\"" },
  go: { keywords: words("package import func return if else for range switch case default break continue go defer select chan map struct interface type var const nil true false make new len cap append error string int int64 bool byte rune float64"), line: ["//"], block: ["/*", "*/"], quotes: "'\"`" },
  rust: { keywords: words("fn let mut const static struct enum impl trait pub use mod crate self Self super return if else match for while loop break continue in as where move ref async await dyn unsafe extern type true false Some None Ok Err"), line: ["//"], block: ["/*", "*/"], quotes: "\"" },
  c: { keywords: words(`${C_LIKE} include define ifdef ifndef endif class public private protected virtual template typename namespace using new delete this nullptr auto`), line: ["//"], block: ["/*", "*/"], quotes: "'\"" },
  java: { keywords: words("class interface enum extends implements public private protected static final abstract void int long boolean char byte short float double new return if else for while do switch case break continue try catch finally throw throws import package this super null true false var record fun val when object"), line: ["//"], block: ["/*", "*/"], quotes: "'\"" },
  ruby: { keywords: words("def end class module if elsif else unless while until for in do return yield begin rescue ensure raise require require_relative attr_accessor self nil true false and or not then case when"), line: ["#"], quotes: "'\"" },
  sql: { keywords: words("select from where and or not insert into values update set delete create table drop alter index primary key foreign references join left right inner outer on group by order having limit offset as distinct null is in like between case when then else end union all SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER INDEX PRIMARY KEY JOIN LEFT INNER ON GROUP BY ORDER HAVING LIMIT AS NULL IS IN LIKE"), line: ["--"], quotes: "'\"" },
  yaml: { keywords: words("true false null yes no on off"), line: ["#"], quotes: "'\"" },
  json: { keywords: words("true false null"), line: [], quotes: "\"" },
};

const ALIASES: Record<string, string> = {
  javascript: "js", jsx: "js", ts: "js", typescript: "js", tsx: "js", mjs: "js", cjs: "js",
  python: "py", bash: "sh", shell: "sh", zsh: "sh", fish: "sh", console: "sh", golang: "go", rs: "rust",
  cpp: "c", "c++": "c", h: "c", hpp: "c", cs: "java", csharp: "java", kotlin: "java", kt: "java", swift: "java",
  rb: "ruby", yml: "yaml", toml: "yaml", jsonc: "json",
};

export function languageOf(lang: string | undefined): Lang | null {
  if (!lang) return null;
  const key = lang.trim().toLowerCase();
  return LANGS[ALIASES[key] ?? key] ?? null;
}

/** The code's lines, coloured for its language; an unknown language comes back as it is. */
export function highlight(code: string, lang: string | undefined, theme: Theme): string[] {
  const spec = languageOf(lang);
  const lines = code.split("\n");
  if (!spec || !theme.color) return lines;
  let inBlock = false;
  return lines.map((line) => {
    const painted = paintLine(line, spec, theme, inBlock);
    inBlock = painted.inBlock;
    return painted.text;
  });
}

function paintLine(line: string, spec: Lang, theme: Theme, startInBlock: boolean): { text: string; inBlock: boolean } {
  let out = "";
  let i = 0;
  let inBlock = startInBlock;
  const s = theme.syntax;
  while (i < line.length) {
    if (inBlock && spec.block) {
      const end = line.indexOf(spec.block[1], i);
      if (end < 0) return { text: out + s.comment(line.slice(i)), inBlock: true };
      out += s.comment(line.slice(i, end + spec.block[1].length));
      i = end + spec.block[1].length;
      inBlock = false;
      continue;
    }
    const rest = line.slice(i);
    if (spec.block && rest.startsWith(spec.block[0])) {
      inBlock = true;
      continue;
    }
    if (spec.line.some((mark) => rest.startsWith(mark))) return { text: out + s.comment(rest), inBlock };
    const ch = line[i] ?? "";
    if (spec.quotes.includes(ch)) {
      let j = i + 1;
      while (j < line.length && line[j] !== ch) j += line[j] === "\\" ? 2 : 1;
      out += s.string(line.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(rest)?.[0];
    if (word) {
      out += spec.keywords.has(word) ? s.keyword(word) : /^[A-Z]/.test(word) ? s.type(word) : word;
      i += word.length;
      continue;
    }
    const number = /^\d[\d_.xXa-fA-F]*/.exec(rest)?.[0];
    if (number) {
      out += s.number(number);
      i += number.length;
      continue;
    }
    out += ch;
    i += 1;
  }
  return { text: out, inBlock };
}
