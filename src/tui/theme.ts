import type { EditorTheme, MarkdownTheme, SelectListTheme } from "./kit.ts";

export type ThemeName = "dark" | "light";

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

/*
 * The derived themes read the theme's paints when they paint, not when they are made: /theme
 * changes the one Theme object in place (applyTheme), and everything drawn follows.
 */

export function selectListTheme(theme: Theme): SelectListTheme {
  return {
    selectedPrefix: (t) => theme.selected(t),
    selectedText: (t) => theme.selected(t),
    description: (t) => theme.dim(t),
    scrollInfo: (t) => theme.dim(t),
    noMatch: (t) => theme.dim(t),
  };
}

export function editorTheme(theme: Theme): EditorTheme {
  return { borderColor: (t) => theme.border(t), selectList: selectListTheme(theme) };
}

/** Changes `theme` in place into the one named, so that every block, card and list drawn with it follows. */
export function applyTheme(theme: Theme, name: ThemeName): void {
  Object.assign(theme, makeTheme(name, theme.color));
}

export function markdownTheme(theme: Theme, highlightCode?: (code: string, lang?: string) => string[]): MarkdownTheme {
  return {
    heading: (t) => theme.bold(theme.accent(t)),
    link: (t) => theme.accent(t),
    linkUrl: (t) => theme.dim(t),
    code: (t) => theme.code(t),
    codeBlock: plain,
    codeBlockBorder: (t) => theme.dim(t),
    quote: (t) => theme.italic(t),
    quoteBorder: (t) => theme.dim(t),
    hr: (t) => theme.dim(t),
    listBullet: (t) => theme.accent(t),
    bold: (t) => theme.bold(t),
    italic: (t) => theme.italic(t),
    strikethrough: (t) => (theme.color ? `\x1b[9m${t}\x1b[29m` : t),
    underline: (t) => (theme.color ? `\x1b[4m${t}\x1b[24m` : t),
    ...(highlightCode ? { highlightCode } : {}),
  };
}
