import { Marked } from "@earendil-works/pi-tui";
import { misleadingLink } from "./links.ts";

/**
 * The one door to the terminal UI library (@earendil-works/pi-tui, pinned): every other file of
 * src/tui imports what it draws with from here, so that the library can be replaced in one place.
 */
export {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  type Component,
  Container,
  CURSOR_MARKER,
  Editor,
  type EditorTheme,
  type Focusable,
  Input,
  fuzzyFilter,
  Key,
  Markdown,
  type MarkdownTheme,
  matchesKey,
  renderFakeCursor,
  type SelectItem,
  SelectList,
  type SelectListTheme,
  type Terminal,
  Text,
  type TUI,
  TuiMainScreen,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
/** The process's terminal: pi-tui's, with a paste read in linear time (paste-terminal.ts). */
export { ProcessTerminal } from "./paste-terminal.ts";

/**
 * marked's setext-heading rule (a paragraph underlined with === or ---) is a lazy regex that costs
 * about a microsecond a character on JavaScriptCore, on every paragraph it is tried on: a streaming
 * answer's live paragraph pays it at every frame (80 ms a frame for a 60,000-character one). It
 * can only match where a line of up to three spaces and = or - follows a newline, so without one
 * it is not tried: the same tokens, found in a few microseconds.
 */
const { Tokenizer } = new Marked();
const setextHeading = Tokenizer.prototype.lheading;
const UNDERLINE = /\n {0,3}[=-]/;
Tokenizer.prototype.lheading = function lheading(this: InstanceType<typeof Tokenizer>, src: string) {
  return UNDERLINE.test(src) ? setextHeading.call(this, src) : undefined;
};

/**
 * A link whose text is another address than its target shows its target as its text: a terminal
 * that shows links (OSC 8) prints the text alone, and the person must see where a click leads.
 */
type Tokenizing = InstanceType<typeof Tokenizer>;
type LinkToken = { type: string; href?: string; text?: string; tokens?: unknown[] };
function honest<T>(token: T): T {
  const link = token as LinkToken | undefined;
  if (link?.type !== "link" || link.href === undefined || link.text === undefined || !misleadingLink(link.text, link.href)) return token;
  return { ...link, text: link.href, tokens: [{ type: "text", raw: link.href, text: link.href, escaped: false }] } as T;
}
const inlineLink = Tokenizer.prototype.link;
Tokenizer.prototype.link = function link(this: Tokenizing, src: string) {
  return honest(inlineLink.call(this, src));
};
const referenceLink = Tokenizer.prototype.reflink;
Tokenizer.prototype.reflink = function reflink(this: Tokenizing, src: string, links: Parameters<Tokenizing["reflink"]>[1]) {
  return honest(referenceLink.call(this, src, links));
};
