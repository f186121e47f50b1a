import { SettledScreen } from "./settled-screen.ts";

/** After a frame that took `c` ms, the next waits at least PACE × c from its end. */
const PACE = 2;

/**
 * The main screen with frames paced by what they cost: after a frame that took c ms, the next
 * waits 2c from its end (besides the UI library's 16 ms from one frame's start to the next), so
 * that drawing takes at most a third of the terminal's time when changes come faster than frames
 * can be drawn: a long answer streaming fast, whose every frame draws its whole live paragraph,
 * while the engine reading the stream runs on the same thread. A frame that costs a millisecond or
 * two is not held back; a forced frame (a resize, a new theme) never is.
 */
export class PacedScreen extends SettledScreen {
  private nextAt = 0;
  private held: Timer | null = null;

  protected override doRender(): void {
    // A request held back is drawn by this frame (a key's, which the library draws at once).
    this.release();
    const start = performance.now();
    super.doRender();
    const end = performance.now();
    this.nextAt = end + PACE * (end - start);
  }

  override requestRender(force = false): void {
    if (force) {
      super.requestRender(true);
      return;
    }
    // Asked at every chunk of a stream: a frame already held back is all there is to do.
    if (this.held) return;
    const wait = this.nextAt - performance.now();
    if (wait <= 0) {
      super.requestRender();
      return;
    }
    this.held = setTimeout(() => {
      this.held = null;
      super.requestRender();
    }, wait);
  }

  override stop(): void {
    this.release();
    super.stop();
  }

  private release(): void {
    if (!this.held) return;
    clearTimeout(this.held);
    this.held = null;
  }
}
