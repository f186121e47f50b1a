import type { EditorTheme, MarkdownTheme, SelectListTheme } from "./kit.ts";

export type ThemeName = "dark" | "light";
export const THEMES: readonly ThemeName[] = ["dark", "light"];

type Paint = (text: string) => string;

/** What the screen paints with: roles, not colours, so that a component never picks a colour itself. */
export type Theme = {
  name: ThemeName;
  /** false under NO_COLOR: every paint returns its text unchanged. */
  color: boolean;
  accent: Paint;
  dim: Paint;
  bold: Paint;
  italic: Paint;
  user: Paint;
  ok: Paint;
  warn: Paint;
  error: Paint;
  added: Paint;
  removed: Paint;
  border: Paint;
  selected: Paint;
  code: Paint;
  /** Syntax roles, for highlighted code. */
  syntax: { keyword: Paint; string: Paint; comment: Paint; number: Paint; type: Paint };
};

const sgr = (open: string, close: string): Paint => (text) => `\x1b[${open}m${text}\x1b[${close}m`;
const fg = (code: string): Paint => sgr(`38;5;${code}`, "39");
const plain: Paint = (text) => text;

/** The theme by name; NO_COLOR (any value, as no-color.org says) gives the same roles, uncoloured. */
export function makeTheme(name: ThemeName, color = process.env.NO_COLOR === undefined): Theme {
  if (!color) {
    const syntax = { keyword: plain, string: plain, comment: plain, number: plain, type: plain };
    return { name, color, accent: plain, dim: plain, bold: plain, italic: plain, user: plain, ok: plain, warn: plain, error: plain, added: plain, removed: plain, border: plain, selected: plain, code: plain, syntax };
  }
  const dark = name === "dark";
  return {
    name,
    color,
    accent: fg(dark ? "75" : "25"),
    dim: sgr("2", "22"),
    bold: sgr("1", "22"),
    italic: sgr("3", "23"),
    user: fg(dark ? "252" : "236"),
    ok: fg(dark ? "114" : "28"),
    warn: fg(dark ? "221" : "130"),
    error: fg(dark ? "203" : "160"),
    added: fg(dark ? "114" : "28"),
    removed: fg(dark ? "203" : "160"),
    border: fg(dark ? "240" : "250"),
    selected: fg(dark ? "81" : "26"),
    code: fg(dark ? "180" : "94"),
    syntax: {
      keyword: fg(dark ? "176" : "90"),
      string: fg(dark ? "150" : "28"),
      comment: fg(dark ? "244" : "245"),
      number: fg(dark ? "209" : "166"),
      type: fg(dark ? "117" : "31"),
    },
  };
}

export function selectListTheme(theme: Theme): SelectListTheme {
  return {
    selectedPrefix: theme.selected,
    selectedText: theme.selected,
    description: theme.dim,
    scrollInfo: theme.dim,
    noMatch: theme.dim,
  };
}

export function editorTheme(theme: Theme): EditorTheme {
  return { borderColor: theme.border, selectList: selectListTheme(theme) };
}

export function markdownTheme(theme: Theme, highlightCode?: (code: string, lang?: string) => string[]): MarkdownTheme {
  return {
    heading: (t) => theme.bold(theme.accent(t)),
    link: theme.accent,
    linkUrl: theme.dim,
    code: theme.code,
    codeBlock: plain,
    codeBlockBorder: theme.dim,
    quote: theme.italic,
    quoteBorder: theme.dim,
    hr: theme.dim,
    listBullet: theme.accent,
    bold: theme.bold,
    italic: theme.italic,
    strikethrough: (t) => (theme.color ? `\x1b[9m${t}\x1b[29m` : t),
    underline: (t) => (theme.color ? `\x1b[4m${t}\x1b[24m` : t),
    ...(highlightCode ? { highlightCode } : {}),
  };
}
