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

/** A list to pick one of, with a title; Enter picks, Esc gives null. Items filter as the person types. */
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
  ) {
    this.head = new Text(theme.bold(title), 0, 0);
    // SelectList filters on an item's value (its start): the label leads it, the index follows.
    const entries: SelectItem[] = items.map((item, i) => ({ value: `${item.label}${INDEX_MARK}${i}`, label: item.label, ...(item.description ? { description: item.description } : {}) }));
    this.list = new SelectList(entries, Math.min(12, Math.max(1, entries.length)), selectListTheme(theme));
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

  render(width: number): readonly string[] {
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
