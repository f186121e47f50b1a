import { ProcessTerminal as LibraryTerminal } from "@earendil-works/pi-tui";
import { PasteReader } from "./paste-reader.ts";

type DataListener = (data: string) => void;

/**
 * pi-tui's terminal with our paste reader in front of its own: pi-tui's stdin buffer searched the
 * whole paste gathered so far for its end marker at every chunk read (StdinBuffer.process, in
 * `stdin-buffer.js`), a paste's cost quadratic in its size (a 10 MB paste froze the terminal for
 * half a minute). Ours gathers each paste whole in linear time and hands it to pi-tui's reader as one
 * chunk, which it then reads once; keys go to it as they come. pi-tui sets its reader on stdin in
 * start(): ours takes its place there, and calls it. Part of the door to the library: kit.ts exports
 * it as the terminal, the library's own is not used elsewhere.
 */
export class ProcessTerminal extends LibraryTerminal {
  private reading: { listener: DataListener; reader: PasteReader } | null = null;

  override start(onInput: (data: string) => void, onResize: () => void): void {
    const before = new Set(process.stdin.listeners("data"));
    super.start(onInput, onResize);
    const theirs = process.stdin.listeners("data").filter((listener) => !before.has(listener));
    // A pi-tui that reads stdin otherwise is left to read it as it does.
    const [libraryReader] = theirs;
    if (theirs.length !== 1 || !libraryReader) return;
    process.stdin.removeListener("data", libraryReader);
    const reader = new PasteReader((data) => libraryReader(data));
    const listener: DataListener = (data) => reader.read(String(data));
    process.stdin.on("data", listener);
    this.reading = { listener, reader };
  }

  override stop(): void {
    if (this.reading) {
      this.reading.reader.clear();
      process.stdin.removeListener("data", this.reading.listener);
      this.reading = null;
    }
    super.stop();
  }
}
