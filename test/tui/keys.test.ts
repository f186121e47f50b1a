import { describe, expect, test } from "bun:test";
import { GlobalKeys, type KeySurface, nextMode, QUIT_WINDOW_MS } from "../../src/tui/keys.ts";

function surface(over: Partial<KeySurface> = {}) {
  const did: string[] = [];
  const s: KeySurface = {
    panel: () => null,
    composerText: () => "",
    clearComposer: () => did.push("clear"),
    completing: () => false,
    busy: () => false,
    interrupt: () => did.push("interrupt"),
    quit: () => did.push("quit"),
    cycleMode: () => did.push("mode"),
    suspend: () => did.push("suspend"),
    rewind: () => did.push("rewind"),
    searchPrompts: () => did.push("search"),
    say: (m) => did.push(`say ${m}`),
    ...over,
  };
  return { s, did };
}

const CTRL_C = "\x03";
const ESC = "\x1b";

describe("the keys that mean the same wherever focus is", () => {
  test("Esc twice on an empty composer between turns opens the rewind picker; not with text, nor while a turn runs, nor apart", () => {
    let now = 1_000;
    const idle = surface();
    const keys = new GlobalKeys(idle.s, () => now);
    keys.handle(ESC);
    now += QUIT_WINDOW_MS + 1;
    keys.handle(ESC);
    expect(idle.did).toEqual([]);
    now += 100;
    keys.handle(ESC);
    expect(idle.did).toEqual(["rewind"]);
    const typed = surface({ composerText: () => "draft" });
    const typedKeys = new GlobalKeys(typed.s, () => now);
    typedKeys.handle(ESC);
    typedKeys.handle(ESC);
    expect(typed.did).toEqual([]);
    const busy = surface({ busy: () => true });
    const busyKeys = new GlobalKeys(busy.s, () => now);
    busyKeys.handle(ESC);
    busyKeys.handle(ESC);
    expect(busy.did).toEqual(["interrupt", "interrupt"]);
    // Two presses read as one chunk are two presses.
    const chunk = surface();
    new GlobalKeys(chunk.s, () => now).handle(ESC + ESC);
    expect(chunk.did).toEqual(["rewind"]);
  });

  test("a second Ctrl-C quits only within the window; one after it warns again", () => {
    let now = 1_000;
    const { s, did } = surface();
    const keys = new GlobalKeys(s, () => now);
    keys.handle(CTRL_C);
    now += QUIT_WINDOW_MS + 1;
    keys.handle(CTRL_C);
    expect(did).toEqual(["say press Ctrl-C again to quit", "say press Ctrl-C again to quit"]);
    now += 100;
    keys.handle(CTRL_C);
    expect(did.at(-1)).toBe("quit");
  });

  test("Ctrl-C clears a composer with text, and on a card interrupts a running turn; a form keeps it", () => {
    const text = surface({ composerText: () => "draft" });
    new GlobalKeys(text.s).handle(CTRL_C);
    expect(text.did).toEqual(["clear"]);
    const card = surface({ panel: () => "card", busy: () => true });
    expect(new GlobalKeys(card.s).handle(CTRL_C)).toEqual({ consume: true });
    expect(card.did).toEqual(["interrupt"]);
    const form = surface({ panel: () => "other", busy: () => true });
    expect(new GlobalKeys(form.s).handle(CTRL_C)).toBeUndefined();
    expect(form.did).toEqual([]);
  });

  test("Ctrl-C while a turn runs stops it first, the draft kept, and never quits; between turns it clears, then twice quits", () => {
    let now = 1_000;
    let busy = true;
    let text = "half a thought";
    const { s, did } = surface({ busy: () => busy, composerText: () => text, clearComposer: () => did.push("clear") });
    const keys = new GlobalKeys(s, () => now);
    expect(keys.handle(CTRL_C)).toEqual({ consume: true });
    text = "";
    keys.handle(CTRL_C);
    now += 100;
    keys.handle(CTRL_C);
    expect(did).toEqual(["interrupt", "interrupt", "interrupt"]);
    busy = false;
    text = "draft";
    keys.handle(CTRL_C);
    text = "";
    keys.handle(CTRL_C);
    now += 100;
    keys.handle(CTRL_C);
    expect(did.slice(3)).toEqual(["clear", "say press Ctrl-C again to quit", "quit"]);
  });

  test("Ctrl+R opens the search of earlier prompts over the composer, not over a card or a picker", () => {
    const composer = surface({ composerText: () => "draft" });
    expect(new GlobalKeys(composer.s).handle("\x12")).toEqual({ consume: true });
    expect(composer.did).toEqual(["search"]);
    const card = surface({ panel: () => "card" });
    expect(new GlobalKeys(card.s).handle("\x12")).toBeUndefined();
    expect(card.did).toEqual([]);
  });

  test("Esc interrupts only a running turn with nothing open over the composer", () => {
    const idle = surface();
    expect(new GlobalKeys(idle.s).handle("\x1b")).toBeUndefined();
    const completing = surface({ busy: () => true, completing: () => true });
    expect(new GlobalKeys(completing.s).handle("\x1b")).toBeUndefined();
    const busy = surface({ busy: () => true });
    new GlobalKeys(busy.s).handle("\x1b");
    expect(busy.did).toEqual(["interrupt"]);
  });

  test("Shift+Tab cycles plan → manual → edit → auto → plan", () => {
    expect(["plan", "manual", "edit", "auto"].map((m) => nextMode(m as "plan"))).toEqual(["manual", "edit", "auto", "plan"]);
  });
});
