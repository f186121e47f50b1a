/** The composer's marker of a large paste (pi-tui's): `[paste #1 +300 lines]` or `[paste #2 1500 chars]`. */
const MARKER = /\[paste #\d+(?: (?:\+\d+ lines|\d+ chars))?\]/g;

/** The part of the composer this needs: its text with the markers, the same expanded, and its change hook. */
type Watched = { getText(): string; getExpandedText(): string; onChange?: (text: string) => void };

/**
 * Which large pastes a prompt carried: the composer folds each to a marker and sends it expanded,
 * and the transcript folds them again (transcript.ts). Kept from the composer's last text before
 * it was cleared to be sent, so it works whatever sends it.
 */
export class PasteFolds {
  private last: { text: string; expanded: string } | null = null;

  constructor(private readonly editor: Watched) {
    const before = editor.onChange;
    editor.onChange = (text) => {
      before?.(text);
      // The composer is cleared just before it sends: what it held then is kept.
      if (text === "") return;
      this.last = MARKER.test(text) ? { text, expanded: editor.getExpandedText() } : null;
      MARKER.lastIndex = 0;
    };
  }

  /** The pastes in `sent` (a prompt as the composer sent it), in order; nothing when it held none. */
  take(sent: string): string[] {
    const last = this.last;
    this.last = null;
    if (!last || last.expanded.trim() !== sent.trim()) return [];
    return pastesIn(last.text, last.expanded);
  }
}

/** The texts the markers of `text` stand for in `expanded`. */
export function pastesIn(text: string, expanded: string): string[] {
  const literals = text.split(MARKER).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (literals.length < 2) return [];
  const found = new RegExp(`^${literals.join("([\\s\\S]*?)")}$`).exec(expanded);
  return found ? found.slice(1).filter((paste): paste is string => paste !== undefined && paste !== "") : [];
}
