/**
 * HTML to readable markdown, on Bun's HTMLRewriter (lol-html): headings, paragraphs, links, lists,
 * emphasis, code and code blocks, tables as rows of cells; scripts, styles and the page's
 * navigation left out. A reader's view for a model, not a faithful conversion.
 */

/** Elements whose content is noise to a reader (with everything inside them). */
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "nav", "header", "footer", "aside", "form", "iframe", "button", "select", "head", "object", "canvas"]);
const BLOCKS = new Set(["p", "div", "section", "article", "main", "blockquote", "table", "figure", "figcaption", "dl", "dd", "dt", "details", "summary", "address"]);
const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const INLINE: Record<string, string> = { strong: "**", b: "**", em: "_", i: "_", del: "~~", s: "~~" };

type List = { ordered: boolean; count: number };
/** Deeper lists are indented no further: an item's indent grows with its depth, and a page may nest lists by the million. */
const MAX_INDENT = 8;
const MAX_TITLE = 200;
/**
 * End-tag handlers open at once. lol-html's work at an end tag grows with the handlers still open,
 * so elements nested by the hundred thousand held the event loop for most of a minute (4.4 MB of
 * <div>: ~40 s); elements deeper than this are read as their text alone.
 */
const MAX_OPEN = 256;
/** The most of a page converted, in characters; the fetch cap keeps a page below it. */
const MAX_HTML_CHARS = 8 * 1024 * 1024;
/**
 * The longest one conversion runs (it holds the event loop), a last resort: the bounds above keep
 * the largest page fetch reads well under a second. The time is looked at every CHECK_EVERY calls.
 */
const MAX_MILLIS = 10_000;
const CHECK_EVERY = 4096;

/** Thrown from a handler to stop the rewriter: the rest of the page is left out, and why is said. */
class Cut extends Error {}

/**
 * The page as markdown, links made absolute against `base`; the page's <title> too, as `title`.
 * `work` counts the handlers' calls and, at every end tag, the end-tag handlers then open: what
 * the conversion costs, linear in the page's size.
 */
export function htmlToMarkdown(html: string, base: string, maxMillis = MAX_MILLIS): { markdown: string; title: string | null; work: number } {
  const out: string[] = [];
  const lists: List[] = [];
  let skip = 0;
  let pre = 0;
  let title: string | null = null;
  let inTitle = false;
  let titles = 0;
  let open = 0;
  let work = 0;
  let calls = 0;
  const deadline = performance.now() + maxMillis;
  const emit = (text: string): void => void out.push(text);
  const step = (): void => {
    work++;
    if (++calls % CHECK_EVERY === 0 && performance.now() > deadline) throw new Cut(`converting it took longer than ${maxMillis / 1000} s`);
  };
  /** Runs `run` at the element's end; false (nothing set) for an element too deep to follow. */
  const onEnd = (el: HTMLRewriterTypes.Element, run: () => void): boolean => {
    if (!el.canHaveContent) return true;
    if (open >= MAX_OPEN) return false;
    open++;
    el.onEndTag(() => {
      open--;
      work += open;
      step();
      run();
    });
    return true;
  };
  /** An element whose content is never read: where it ends must be known, or nothing after it is read. */
  const unread = (el: HTMLRewriterTypes.Element, done: () => void): void => {
    if (!onEnd(el, done)) throw new Cut(`it nests its elements more than ${MAX_OPEN} deep`);
  };

  const rewriter = new HTMLRewriter()
    .on("title", {
      element(el) {
        step();
        // Never body text; the page's title is the first (an inline SVG's <title> names an icon).
        // Its one end-tag handler is set here: an element keeps only the last one set.
        const first = ++titles === 1;
        if (!first && skip > 0) return;
        if (!el.canHaveContent) return;
        inTitle = first;
        skip++;
        unread(el, () => {
          inTitle = false;
          skip--;
        });
      },
      text(chunk) {
        if (inTitle) title = (title ?? "") + chunk.text;
      },
    })
    .on("*", {
      element(el) {
        step();
        // Inside an element left out, nothing is read: only where that one ends matters.
        if (skip > 0) return;
        const tag = el.tagName;
        if (SKIPPED.has(tag)) {
          if (!el.canHaveContent) return;
          skip++;
          return unread(el, () => void skip--);
        }
        const level = HEADINGS[tag];
        if (level) return void blockLevel(el, `\n\n${"#".repeat(level)} `, "\n\n");
        if (BLOCKS.has(tag)) return void blockLevel(el, "\n\n", "\n\n");
        if (tag === "br") return emit("\n");
        if (tag === "hr") return emit("\n\n---\n\n");
        if (tag === "tr") return void blockLevel(el, "\n", "|");
        if (tag === "td" || tag === "th") return void blockLevel(el, "| ", " ");
        if (tag === "ul" || tag === "ol") {
          const list = { ordered: tag === "ol", count: 0 };
          if (blockLevel(el, lists.length === 0 ? "\n\n" : "", "\n", () => void lists.pop())) lists.push(list);
          return;
        }
        if (tag === "li") return listItem();
        if (tag === "pre") {
          const language = /language-([\w+-]+)/.exec(el.getAttribute("class") ?? "")?.[1] ?? "";
          if (blockLevel(el, `\n\n\`\`\`${language}\n`, "\n```\n\n", () => void pre--)) pre++;
          return;
        }
        if (tag === "code" && pre === 0) return void block(el, "`", "`");
        const mark = INLINE[tag];
        if (mark) return void block(el, mark, mark);
        if (tag === "a") return link(el);
        if (tag === "img") return image(el);
      },
    })
    .onDocument({
      text(chunk) {
        step();
        if (skip > 0 || chunk.text === "") return;
        const text = decodeEntities(chunk.text);
        if (pre > 0) return emit(text);
        const squashed = text.replace(/\s+/g, " ");
        emit(/\s$/.test(out.at(-1) ?? "\n") ? squashed.replace(/^ /, "") : squashed);
      },
    });

  /** `before`, the content, then `after` (and `done`); false, and nothing said, for an element too deep to follow. */
  function block(el: HTMLRewriterTypes.Element, before: string, after: string, done?: () => void): boolean {
    const followed = onEnd(el, () => {
      emit(after);
      done?.();
    });
    if (followed) emit(before);
    return followed;
  }

  /** A block: one too deep to follow is a space between its text and its neighbours'. */
  function blockLevel(el: HTMLRewriterTypes.Element, before: string, after: string, done?: () => void): boolean {
    const followed = block(el, before, after, done);
    if (!followed) emit(" ");
    return followed;
  }

  function listItem(): void {
    const list = lists.at(-1);
    const indent = "  ".repeat(Math.min(Math.max(0, lists.length - 1), MAX_INDENT));
    if (!list) return emit("\n- ");
    list.count++;
    emit(`\n${indent}${list.ordered ? `${list.count}.` : "-"} `);
  }

  function link(el: HTMLRewriterTypes.Element): void {
    const href = absolute(el.getAttribute("href"), base);
    if (!href) return;
    block(el, "[", `](${href})`);
  }

  function image(el: HTMLRewriterTypes.Element): void {
    const alt = el.getAttribute("alt")?.trim();
    const src = absolute(el.getAttribute("src"), base);
    if (alt && src) emit(`![${alt}](${src})`);
  }

  let cut = html.length > MAX_HTML_CHARS ? `it is longer than ${MAX_HTML_CHARS} characters` : null;
  try {
    rewriter.transform(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html);
  } catch (error) {
    if (!(error instanceof Cut)) throw error;
    cut = error.message;
  }
  const said = cut ? `\n\n[… the rest of the page is left out: ${cut}]` : "";
  const shown = title === null ? null : shortTitle(decodeEntities(title).replace(/\s+/g, " ").trim());
  return { markdown: tidy(out.join("")) + said, title: shown, work };
}

/** A title, on the result's first lines, is a line: an unclosed <title> holds the whole page. */
function shortTitle(title: string): string | null {
  if (title.length <= MAX_TITLE) return title || null;
  return `${title.slice(0, MAX_TITLE)}…`;
}

/** A link's target made absolute, or null for one that leads nowhere a reader can follow (#, javascript:). */
function absolute(href: string | null, base: string): string | null {
  if (!href || href.startsWith("#") || /^\s*javascript:/i.test(href)) return null;
  try {
    return new URL(href, base).href;
  } catch {
    return null;
  }
}

/** Trailing spaces gone, no more than one blank line in a row, outside code blocks. */
function tidy(markdown: string): string {
  const lines = markdown.split("\n");
  const kept: string[] = [];
  let fenced = false;
  for (const line of lines) {
    if (line.startsWith("```")) fenced = !fenced;
    const shown = fenced ? line : line.trimEnd();
    if (!fenced && shown === "" && (kept.at(-1) ?? "") === "") continue;
    kept.push(shown);
  }
  return kept.join("\n").trim();
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", copy: "©", reg: "®", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“", laquo: "«", raquo: "»", middot: "·", bull: "•", times: "×" };

/** HTMLRewriter hands text as it is in the source: its character references are decoded here. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
