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

/** The page as markdown, links made absolute against `base`; the page's <title> too, as `title`. */
export function htmlToMarkdown(html: string, base: string): { markdown: string; title: string | null } {
  const out: string[] = [];
  const lists: List[] = [];
  let skip = 0;
  let pre = 0;
  let title: string | null = null;
  let inTitle = false;
  let titles = 0;
  const emit = (text: string): void => void out.push(text);
  const onEnd = (el: HTMLRewriterTypes.Element, run: () => void): void => {
    if (el.canHaveContent) el.onEndTag(run);
  };

  const rewriter = new HTMLRewriter()
    .on("title", {
      element(el) {
        // Never body text; the page's title is the first (an inline SVG's <title> names an icon).
        // Its one end-tag handler is set here: an element keeps only the last one set.
        const first = ++titles === 1;
        inTitle = first;
        skip++;
        onEnd(el, () => {
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
        const tag = el.tagName;
        if (SKIPPED.has(tag)) {
          skip++;
          onEnd(el, () => void skip--);
          return;
        }
        if (skip > 0) return;
        const level = HEADINGS[tag];
        if (level) return block(el, `\n\n${"#".repeat(level)} `, "\n\n");
        if (BLOCKS.has(tag)) return block(el, "\n\n", "\n\n");
        if (tag === "br") return emit("\n");
        if (tag === "hr") return emit("\n\n---\n\n");
        if (tag === "tr") return block(el, "\n", "|");
        if (tag === "td" || tag === "th") return block(el, "| ", " ");
        if (tag === "ul" || tag === "ol") {
          lists.push({ ordered: tag === "ol", count: 0 });
          return block(el, lists.length === 1 ? "\n\n" : "", "\n", () => void lists.pop());
        }
        if (tag === "li") return listItem();
        if (tag === "pre") {
          const language = /language-([\w+-]+)/.exec(el.getAttribute("class") ?? "")?.[1] ?? "";
          pre++;
          return block(el, `\n\n\`\`\`${language}\n`, "\n```\n\n", () => void pre--);
        }
        if (tag === "code" && pre === 0) return block(el, "`", "`");
        const mark = INLINE[tag];
        if (mark) return block(el, mark, mark);
        if (tag === "a") return link(el);
        if (tag === "img") return image(el);
      },
    })
    .onDocument({
      text(chunk) {
        if (skip > 0 || chunk.text === "") return;
        const text = decodeEntities(chunk.text);
        if (pre > 0) return emit(text);
        const squashed = text.replace(/\s+/g, " ");
        emit(/\s$/.test(out.at(-1) ?? "\n") ? squashed.replace(/^ /, "") : squashed);
      },
    });

  function block(el: HTMLRewriterTypes.Element, before: string, after: string, done?: () => void): void {
    emit(before);
    onEnd(el, () => {
      emit(after);
      done?.();
    });
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

  rewriter.transform(html);
  return { markdown: tidy(out.join("")), title: title === null ? null : shortTitle(decodeEntities(title).replace(/\s+/g, " ").trim()) };
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
