import { TuiMainScreen } from "./kit.ts";

/**
 * The main screen, whose lines above the terminal's viewport (in its scrollback, where nothing is
 * drawn again) are left out of each frame's work: the UI library goes over every line of every
 * frame (cleaning, comparing with the last frame), which in a 5,000-line session was most of what a
 * key cost. Those settled lines are still rendered by their blocks (which keep them), and checked
 * to be the same objects as when they settled, a pointer compare each: the moment one of them
 * changes, or the screen's size does, they are handed back and the library sees every line, as
 * before (and redraws the whole screen, which a change above the viewport needs anyway).
 */
export class SettledScreen extends TuiMainScreen {
  /** The frame's rendered lines whose first `settledCount` are settled. */
  private settledFrom: readonly string[] = [];
  private settledCount = 0;
  /** The settled lines as the library last wrote them (its own form of them), to hand back. */
  private settledWritten: string[] = [];
  /** The lines the library draws this frame (the settled ones left out), while it draws. */
  private framed: readonly string[] | null = null;

  override render(width: number): readonly string[] {
    return this.framed ?? super.render(width);
  }

  protected override doRender(): void {
    if (this.stopped) return;
    const { columns, rows } = this.terminal;
    const all = super.render(columns);
    if (this.settledCount > 0 && !this.stillSettled(all, columns, rows)) this.unsettle();
    const redraws = this.fullRedrawCount;
    this.framed = this.settledCount > 0 ? all.slice(this.settledCount) : all;
    try {
      super.doRender();
    } finally {
      this.framed = null;
    }
    if (this.fullRedrawCount !== redraws && this.settledCount > 0) {
      // The library cleared the screen and its scrollback to draw what it was given (with
      // clearOnShrink, say): the settled lines must be drawn again too, whole.
      this.unsettle();
      this.resetRenderState();
      super.doRender();
    }
    this.settle(all, columns, rows);
  }

  /**
   * Whether the settled lines are the very ones rendered now (a shrink by more than a screen takes
   * some of them), on a screen of the same size, and the library's state is the one they were
   * settled from (not reset for a forced frame).
   */
  private stillSettled(all: readonly string[], columns: number, rows: number): boolean {
    const state = this.captureRenderState();
    if (state.previousWidth !== columns || state.previousHeight !== rows) return false;
    if (all === this.settledFrom) return true;
    for (let i = 0; i < this.settledCount; i++) if (all[i] !== this.settledFrom[i]) return false;
    return true;
  }

  /** The lines above the viewport, now in the terminal's scrollback, are left out from the next frame on. */
  private settle(all: readonly string[], columns: number, rows: number): void {
    const state = this.captureRenderState();
    const above = state.previousViewportTop;
    if (above <= 0 || state.previousWidth !== columns || state.previousHeight !== rows) return;
    this.settledWritten.push(...state.previousLines.slice(0, above));
    this.settledCount += above;
    this.settledFrom = all;
    this.restoreRenderState({
      ...state,
      previousLines: state.previousLines.slice(above),
      cursorRow: state.cursorRow - above,
      hardwareCursorRow: state.hardwareCursorRow - above,
      maxLinesRendered: Math.max(0, state.maxLinesRendered - above),
      previousViewportTop: 0,
    });
  }

  /** The settled lines go back into what the library compares and draws. */
  private unsettle(): void {
    const back = this.settledCount;
    const state = this.captureRenderState();
    this.restoreRenderState({
      ...state,
      previousLines: [...this.settledWritten, ...state.previousLines],
      cursorRow: state.cursorRow + back,
      hardwareCursorRow: state.hardwareCursorRow + back,
      maxLinesRendered: state.maxLinesRendered + back,
      previousViewportTop: state.previousViewportTop + back,
    });
    this.settledWritten = [];
    this.settledFrom = [];
    this.settledCount = 0;
  }
}
