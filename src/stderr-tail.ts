/** The last lines a server wrote to stderr, bounded in lines and characters, for error messages. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(
    private readonly maxLines = 20,
    private readonly maxLineChars = 400,
  ) {}

  add(text: string): void {
    const parts = (this.partial + text).split("\n");
    this.partial = (parts.pop() ?? "").slice(-this.maxLineChars);
    for (const line of parts) this.push(line);
  }

  /** The kept lines, oldest first (the unfinished last one too). */
  text(): string {
    return [...this.lines, ...(this.partial.trim() ? [this.partial] : [])].join("\n");
  }

  private push(line: string): void {
    const trimmed = line.replace(/\r$/, "");
    if (!trimmed.trim()) return;
    this.lines.push(trimmed.length > this.maxLineChars ? `${trimmed.slice(0, this.maxLineChars)}…` : trimmed);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }
}
