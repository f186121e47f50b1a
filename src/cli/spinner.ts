const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 100;

/**
 * One line at the bottom of a terminal saying what is awaited and for how long ("⠹ thinking 3s").
 * It is drawn at the start of an empty line and erased whole, so whatever is written next takes
 * its place; the caller draws it only on a terminal.
 */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private since = 0;
  private frame = 0;
  private label = "";

  constructor(
    private readonly out: { write(text: string): unknown },
    private readonly paint: (text: string) => string,
  ) {}

  get spinning(): boolean {
    return this.timer !== null;
  }

  /** Starts (the clock from now), or only relabels a spinner already going. */
  start(label: string): void {
    this.label = label;
    if (this.timer) return;
    this.since = Date.now();
    this.frame = 0;
    this.draw();
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.out.write("\r\x1b[2K");
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    const glyph = FRAMES[this.frame++ % FRAMES.length] ?? "";
    this.out.write(`\r\x1b[2K${this.paint(`${glyph} ${this.label} ${seconds}s`)}`);
  }
}
