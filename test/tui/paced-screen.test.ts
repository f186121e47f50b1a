/**
 * Frames paced by what they cost (src/tui/paced-screen.ts), on the UI library's real main screen
 * drawing into a terminal that keeps what it is sent: after a slow frame the next waits twice its
 * cost, and is then drawn with the latest content (nothing is lost); a forced frame is never held;
 * cheap frames come as the library's own 16 ms allow.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Component, Terminal } from "../../src/tui/kit.ts";
import { PacedScreen } from "../../src/tui/paced-screen.ts";

class KeptTerminal {
  written = "";
  start() {}
  stop() {}
  async drainInput() {}
  write(data: string) {
    this.written += data;
  }
  get columns() {
    return 80;
  }
  get rows() {
    return 24;
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

/** One line of text; drawing it takes `cost` ms (a long answer's frame). Each draw is timed. */
class Line implements Component {
  text = "first";
  cost = 0;
  readonly draws: { at: number; text: string }[] = [];
  render(): string[] {
    const start = performance.now();
    while (performance.now() - start < this.cost) {
      // a frame that costs what a long answer's does
    }
    this.draws.push({ at: performance.now(), text: this.text });
    return [this.text];
  }
  invalidate() {}
}

let screen: PacedScreen | null = null;
afterEach(() => {
  screen?.stop();
  screen = null;
});

function open(): { terminal: KeptTerminal; line: Line; screen: PacedScreen } {
  const terminal = new KeptTerminal();
  const s = new PacedScreen(terminal as unknown as Terminal);
  const line = new Line();
  s.addChild(line);
  screen = s;
  return { terminal, line, screen: s };
}

async function until(test: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error("never happened");
    await Bun.sleep(1);
  }
}

/** How many frames were drawn when a timer of `ms`, set now, fired: an order of events, not a reading of the clock. */
function drawsWhenTimerFires(line: Line, ms: number): Promise<number> {
  return new Promise((resolve) => setTimeout(() => resolve(line.draws.length), ms));
}

describe("frames paced by their cost", () => {
  test("after a slow frame the next waits twice its cost, and draws the latest content", async () => {
    const { line, screen: s, terminal } = open();
    line.cost = 40;
    s.requestRender();
    await until(() => line.draws.length === 1);
    const slowEnd = line.draws[0]?.at ?? 0;
    line.cost = 0;
    for (const text of ["second", "third", "fourth"]) {
      line.text = text;
      s.requestRender();
      await Bun.sleep(5);
    }
    await until(() => line.draws.length >= 2);
    const next = line.draws[1];
    expect((next?.at ?? 0) - slowEnd).toBeGreaterThanOrEqual(75);
    expect(next?.text).toBe("fourth");
    await Bun.sleep(40);
    expect(line.draws.length).toBe(2);
    expect(terminal.written).toContain("fourth");
  });

  test("a forced frame is drawn at once, even right after a slow one", async () => {
    const { line, screen: s } = open();
    line.cost = 40;
    s.requestRender();
    await until(() => line.draws.length === 1);
    line.cost = 0;
    line.text = "held";
    s.requestRender();
    line.text = "forced";
    s.requestRender(true);
    // Drawn before any timer can fire (the library draws a forced frame on the next tick), so not
    // held for the 80 ms the other request waits.
    await Bun.sleep(0);
    expect(line.draws.length).toBe(2);
    expect(line.draws[1]?.text).toBe("forced");
    // The held request went with the forced frame: no frame later for nothing.
    await Bun.sleep(120);
    expect(line.draws.length).toBe(2);
  });

  test("cheap frames are not held beyond the library's 16 ms", async () => {
    const { line, screen: s } = open();
    s.requestRender();
    await until(() => line.draws.length === 1);
    for (let i = 0; i < 5; i++) {
      const before = line.draws.length;
      line.text = `frame ${i}`;
      s.requestRender();
      // Drawn before a 40 ms timer set with the request fires (the library waits at most 16 ms): a
      // frame held as after a slow one (80 ms after the 40 ms one of the tests above) comes after it.
      expect(await drawsWhenTimerFires(line, 40)).toBe(before + 1);
      expect(line.draws.at(-1)?.text).toBe(`frame ${i}`);
    }
  });
});
