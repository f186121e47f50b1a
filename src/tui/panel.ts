import { type Component, Container, matchesKey, type SelectItem, SelectList, Text, truncateToWidth } from "./kit.ts";
import { selectListTheme, type Theme } from "./theme.ts";

/**
 * The place between the transcript and the composer where the person is asked something: a card
 * waiting on them, or a picker. One thing is shown at a time; the rest wait their turn.
 */
export class Panel extends Container {
  private shown: Component | null = null;

  show(component: Component): void {
    this.clear();
    this.shown = component;
    this.addChild(component);
  }

  hide(component?: Component): void {
    if (component && component !== this.shown) return;
    this.clear();
    this.shown = null;
  }

  get current(): Component | null {
    return this.shown;
  }
}

const INDEX_MARK = "\u0000";
/** The rows a picker's list shows when it is not told the screen's room. */
const LIST_ROWS = 12;
/** What a picker draws besides its rows: a blank line and the title above, the hint and the list's "(3/20)" below. */
const PICKER_FRAME = 4;

/**
 * SelectList (pi-tui 1.6) reads how many rows it shows from a field at each render, and has no
 * setter: a picker sizes it to the room the screen has. Checked when the picker is made, so that a
 * library that changed it fails at once and says so.
 */
function sizeList(list: SelectList, rows: number): void {
  const inside = list as unknown as { maxVisible?: unknown };
  if (typeof inside.maxVisible !== "number") throw new Error("the picker needs the SelectList of @earendil-works/pi-tui 1.6 (its maxVisible); this version keeps it elsewhere");
  inside.maxVisible = rows;
}

/**
 * A list to pick one of, with a title; Enter picks, Esc gives null. Items filter as the person
 * types. Told the room the panel has (`room`, in rows), it shows as many rows as fit (all of them
 * on a 40-row screen, for the lists the terminal has); more scroll.
 */
export class Picker<T> implements Component {
  private readonly list: SelectList;
  private readonly head: Text;
  private filter = "";
  focused = false;

  constructor(
    title: string,
    private readonly items: readonly { value: T; label: string; description?: string }[],
    private readonly theme: Theme,
    private readonly done: (value: T | null) => void,
    selected = 0,
    private readonly room?: () => number,
  ) {
    this.head = new Text(theme.bold(title), 0, 0);
    // SelectList filters on an item's value (its start): the label leads it, the index follows.
    const entries: SelectItem[] = items.map((item, i) => ({ value: `${item.label}${INDEX_MARK}${i}`, label: item.label, ...(item.description ? { description: item.description } : {}) }));
    this.list = new SelectList(entries, Math.min(LIST_ROWS, Math.max(1, entries.length)), selectListTheme(theme));
    sizeList(this.list, this.listRows());
    if (selected > 0) this.list.setSelectedIndex(selected);
    this.list.onSelect = (item) => this.done(this.items[Number(item.value.slice(item.value.lastIndexOf(INDEX_MARK) + 1))]?.value ?? null);
    this.list.onCancel = () => this.done(null);
  }

  handleInput(data: string): void {
    if (matchesKey(data, "backspace")) {
      this.filter = this.filter.slice(0, -1);
      this.list.setFilter(this.filter);
      return;
    }
    if (data.length === 1 && data >= " " && data !== "\x7f") {
      this.filter += data;
      this.list.setFilter(this.filter);
      return;
    }
    this.list.handleInput(data);
  }

  private listRows(): number {
    const wanted = Math.max(1, this.items.length);
    if (!this.room) return Math.min(LIST_ROWS, wanted);
    return Math.max(3, Math.min(wanted, this.room() - PICKER_FRAME));
  }

  render(width: number): readonly string[] {
    sizeList(this.list, this.listRows());
    const hint = this.filter ? `  filter: ${this.filter}` : "  type to filter · ↑↓ Enter to pick · Esc to close";
    // The list's own word for an empty filter speaks of commands; a picker's items are anything.
    const none = this.filter !== "" && !this.items.some((item) => item.label.toLowerCase().startsWith(this.filter.toLowerCase()));
    const rows = none ? [this.theme.dim(truncateToWidth(`  nothing starts with “${this.filter}” (Backspace to change it)`, width))] : this.list.render(width);
    return ["", ...this.head.render(width), ...rows, hint.slice(0, width)];
  }

  invalidate(): void {
    this.head.invalidate();
    this.list.invalidate();
  }
}
