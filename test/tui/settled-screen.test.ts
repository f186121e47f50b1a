/**
 * The lines in the terminal's scrollback are left out of each frame's work (src/tui/settled-screen.ts):
 * a key in a 5,000-line transcript costs what the screen's lines cost, not the transcript's. On the
 * UI library's real main screen, drawing into a terminal that keeps what it is sent, beside the
 * library's own screen given the same frames: what reaches the terminal is the same, byte for byte,
 * through keys, a growing transcript, a change above the viewport, a shrink and a resize.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Component, Terminal } from "../../src/tui/kit.ts";
import { TuiMainScreen } from "../../src/tui/kit.ts";
import { SettledScreen } from "../../src/tui/settled-screen.ts";

class KeptTerminal {
  written = "";
  columns = 80;
  rows = 24;
  start() {}
  stop() {}
  async drainInput() {}
  write(data: string) {
    this.written += data;
  }
  get kittyProtocolActive() {
    return false;
  }
  moveBy() {}
  hideCursor() {}
  showCursor() {}
  clearLine() {}
  clearFromCursor() {}
  clearScreen() {}
  setTitle() {}
  setProgress() {}
  setProgramStatus() {}
}

/** Lines kept as one array until changed, as a finished block keeps its render. */
class Lines implements Component {
  private lines: string[];
  constructor(count: number, label: string) {
    this.lines = Array.from({ length: count }, (_, i) => `${label} ${i + 1}`);
  }
  set(lines: string[]): void {
    this.lines = lines;
  }
  get(): string[] {
    return this.lines;
  }
  render(): string[] {
    return this.lines;
  }
  invalidate() {}
}

/** How many lines the library went over, cleaning them for the terminal, at each frame. */
class CountedSettled extends SettledScreen {
  readonly perFrame: number[] = [];
  protected override applyLineResets(lines: string[]): string[] {
    this.perFrame.push(lines.length);
    return super.applyLineResets(lines);
  }
}

const opened: { stop(): void }[] = [];
afterEach(() => {
  for (const screen of opened.splice(0)) screen.stop();
});

function pair() {
  const make = <T extends TuiMainScreen>(Screen: new (terminal: Terminal) => T) => {
    const terminal = new KeptTerminal();
    const screen = new Screen(terminal as unknown as Terminal);
    const transcript = new Lines(0, "line");
    const composer = new Lines(1, "composer");
    screen.addChild(transcript);
    screen.addChild(composer);
    screen.start();
    opened.push(screen);
    return { terminal, screen, transcript, composer };
  };
  const settled = make(CountedSettled);
  const plain = make(TuiMainScreen);
  return {
    settled,
    plain,
    /** One frame of both after `change`; what each wrote for it. */
    frame(change: (side: { transcript: Lines; composer: Lines; terminal: KeptTerminal }) => void) {
      const out: string[] = [];
      for (const side of [settled, plain]) {
        change(side);
        const before = side.terminal.written.length;
        side.screen.renderNow();
        out.push(side.terminal.written.slice(before));
      }
      return { settled: out[0] ?? "", plain: out[1] ?? "" };
    },
  };
}

const CLEAR = "\x1b[2J\x1b[H\x1b[3J";

describe("the lines in the scrollback", () => {
  test("a key in a 5,000-line transcript goes over the screen's lines only", () => {
    const { settled, frame } = pair();
    frame(({ transcript }) => transcript.set(new Lines(5_000, "line").get()));
    frame(({ composer }) => composer.set(["composer h"]));
    settled.screen.perFrame.length = 0;
    for (const typed of ["hi", "hi ", "hi t", "hi th"]) {
      const out = frame(({ composer }) => composer.set([`composer ${typed}`]));
      expect(out.settled).toBe(out.plain);
    }
    expect(Math.max(...settled.screen.perFrame)).toBeLessThanOrEqual(24);
  });

  test("every frame writes what the library's own screen writes: growth, keys, a change above the viewport, a shrink, a resize", () => {
    const { settled, plain, frame } = pair();
    const same = (out: { settled: string; plain: string }) => expect(JSON.stringify(out.settled)).toBe(JSON.stringify(out.plain));
    same(frame(({ transcript }) => transcript.set(new Lines(10, "line").get())));
    // The transcript grows past the screen, a few lines a frame, as an answer streams.
    for (let n = 14; n <= 120; n += 7) same(frame(({ transcript }) => transcript.set(new Lines(n, "line").get())));
    same(frame(({ composer }) => composer.set(["composer a", "composer b"])));
    same(frame(({ composer }) => composer.set(["composer a"])));
    same(frame(({ transcript }) => transcript.set(new Lines(130, "line").get())));
    // A line in the scrollback changes: both draw everything again.
    const above = frame(({ transcript }) => {
      const lines = [...transcript.get()];
      lines[3] = "line 4, changed";
      transcript.set(lines);
    });
    same(above);
    expect(above.settled).toContain(CLEAR);
    same(frame(({ composer }) => composer.set(["composer after"])));
    // The transcript shrinks by more than a screen (/clear): what is drawn after the clear is the same.
    const shrunk = frame(({ transcript }) => transcript.set(new Lines(30, "line").get()));
    expect(shrunk.settled.slice(shrunk.settled.lastIndexOf(CLEAR))).toBe(shrunk.plain.slice(shrunk.plain.lastIndexOf(CLEAR)));
    for (let n = 37; n <= 90; n += 9) same(frame(({ transcript }) => transcript.set(new Lines(n, "line").get())));
    // What is below the transcript shrinks by more than a screen (a tall card answered): the same.
    same(frame(({ composer }) => composer.set(new Lines(40, "card").get())));
    same(frame(({ transcript }) => transcript.set(new Lines(95, "line").get())));
    const answered = frame(({ composer }) => composer.set(["composer b"]));
    expect(answered.settled.slice(answered.settled.lastIndexOf(CLEAR))).toBe(answered.plain.slice(answered.plain.lastIndexOf(CLEAR)));
    same(frame(({ composer }) => composer.set(["composer c"])));
    // With clearOnShrink the library clears the scrollback at a shrink of one line: all is drawn again.
    same(frame(({ composer }) => composer.set(["composer c", "composer d"])));
    settled.screen.setClearOnShrink(true);
    plain.screen.setClearOnShrink(true);
    const cleared = frame(({ composer }) => composer.set(["composer e"]));
    expect(cleared.settled.slice(cleared.settled.lastIndexOf(CLEAR))).toBe(cleared.plain.slice(cleared.plain.lastIndexOf(CLEAR)));
    expect(cleared.plain).toContain(CLEAR);
    settled.screen.setClearOnShrink(false);
    plain.screen.setClearOnShrink(false);
    same(frame(({ transcript }) => transcript.set(new Lines(99, "line").get())));
    // A resize draws everything again, the scrollback's lines too.
    const resized = frame(({ terminal }) => {
      terminal.columns = 60;
    });
    same(resized);
    expect(resized.settled).toContain("line 1\x1b");
    same(frame(({ composer }) => composer.set(["composer resized"])));
    same(frame(({ terminal }) => {
      terminal.rows = 30;
    }));
    same(frame(({ composer }) => composer.set(["composer taller"])));
  });
});
