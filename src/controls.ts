/**
 * Text from elsewhere (a model, a server, a file, an instance) as it may reach a terminal: the one
 * place that takes out what would act on the terminal instead of being read — escape sequences,
 * control characters, and the bidi controls that reorder what a line shows (U+202E makes
 * `exe.txt` read `txt.exe`).
 */

/**
 * Terminal control sequences, whole: CSI (ESC [ or 0x9b … final byte), the string commands OSC,
 * DCS, SOS, PM and APC (ESC ] P X ^ _, or 0x9d 0x90 0x98 0x9e 0x9f, up to BEL or ST — or the end
 * of the text when unterminated), and any other ESC with its intermediate and final bytes.
 */
const SEQUENCES =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
/** What is left of control characters once the sequences are gone: C0 but whitespace, DEL, C1. */
const CONTROLS = /[\x00-\x08\x0e-\x1f\x7f-\x9f]/g;
/** Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they reorder what follows them. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
/** Whitespace controls that move the cursor rather than print: CR, VT, FF. */
const MOVES = /[\r\v\f]/g;
/** Anything {@link escapeControls} writes out. */
const ESCAPED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text with terminal control removed — escape sequences as a whole, then any other control
 * character and the bidi controls — so that printing it cannot retitle a window, move the cursor,
 * ring the bell or reorder the line. Whitespace controls (tab, newline, CR) are left for the
 * caller to fold; {@link terminalText} and {@link terminalLine} do.
 */
export function withoutControls(text: string): string {
  return text.replace(SEQUENCES, "").replace(CONTROLS, "").replace(BIDI, "");
}

/** Text of several lines as it may be printed: of the controls, only newline and tab are kept. */
export function terminalText(text: string): string {
  return withoutControls(text).replace(MOVES, "");
}

/** Text that must stay on one line (a name, an id, a label): no control at all, line breaks and tabs made spaces. */
export function terminalLine(text: string): string {
  return withoutControls(text).replace(/[\t\n\r\v\f]/g, " ");
}

/** Whether printing `text` as it is could act on the terminal (anything terminalLine would change). */
export function hasControls(text: string): boolean {
  return terminalLine(text) !== text;
}

/**
 * Control characters and bidi controls written out (`\x1b`, `\u202e`) instead of removed: for
 * what a person approves, which must show all of what will run, the hidden parts too.
 */
export function escapeControls(text: string): string {
  return text.replace(ESCAPED, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/**
 * Text a project makes (a file or directory name, a custom command's or a skill's description) as
 * one line to draw: line breaks and tabs become spaces, every other control character and bidi
 * control is written out ({@link escapeControls}), so that an escape sequence in it shows as text
 * (`\x1b]0;…`) instead of retitling the window, writing the clipboard or switching screens.
 */
export function visibleLine(text: string): string {
  return escapeControls(text.replace(/[\t\n]/g, " "));
}
