/** A way to paint text for one stream: plain unless that stream is a terminal and NO_COLOR is unset. */
export type Paints = {
  color: boolean;
  dim: (text: string) => string;
  bold: (text: string) => string;
  added: (text: string) => string;
  removed: (text: string) => string;
  hunk: (text: string) => string;
  error: (text: string) => string;
  warn: (text: string) => string;
};

const sgr = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

/** Each stream is judged on its own (`lembas run > out.txt` at a terminal: stderr in colour, stdout plain); NO_COLOR with any value, as no-color.org says. */
export function paintsFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Paints {
  if (!stream.isTTY || env.NO_COLOR !== undefined) {
    return { color: false, dim: plain, bold: plain, added: plain, removed: plain, hunk: plain, error: plain, warn: plain };
  }
  return {
    color: true,
    dim: sgr("2", "22"),
    bold: sgr("1", "22"),
    added: sgr("32", "39"),
    removed: sgr("31", "39"),
    hunk: sgr("36", "39"),
    error: sgr("31", "39"),
    warn: sgr("33", "39"),
  };
}
