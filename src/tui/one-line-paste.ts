import { withoutControls } from "../controls.ts";

/** A bracketed paste as the terminal delivers it (pi-tui hands the whole paste over at once). */
export const BRACKETED = /^\x1b\[200~([\s\S]*)\x1b\[201~$/;

/**
 * A paste into a one-line input, made safe: pi-tui's Input keeps a paste's escape sequences
 * (drawn, they would move the cursor or clear the screen) and drops its line breaks, gluing the
 * lines together (`touch a` and `touch b` became `touch atouch b`). Here the terminal control
 * goes, and each line break is a space. Anything but a paste is given back as it is.
 */
export function oneLinePaste(data: string): string {
  const pasted = BRACKETED.exec(data)?.[1];
  if (pasted === undefined) return data;
  const text = withoutControls(pasted.replace(/\r\n|\r|\n/g, " ").replace(/\t/g, " "));
  return `\x1b[200~${text}\x1b[201~`;
}
