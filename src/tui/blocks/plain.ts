import { withoutControls } from "../../controls.ts";

// The skin-tone modifiers: terminals disagree on their width (tmux and VTE give 👍🏽 four columns,
// the UI library two), and a line one column wider than measured wraps and tears the frame.
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;
// What withoutControls leaves for its caller and a frame cannot have: CR, VT and FF move the cursor.
const MOVES = /[\r\v\f]/g;

/**
 * Text from outside (the model, a command's output, a file) as it may be drawn: an escape sequence
 * in it could move the cursor, clear the screen or retitle the terminal, so terminal control goes
 * (src/controls.ts), and so do skin tones (the emoji stays). Tabs and newlines stay. A sequence cut
 * between two streamed pieces is harmless either way: its start goes with the first.
 */
export function plain(text: string): string {
  return withoutControls(text).replace(MOVES, "").replace(SKIN_TONE, "");
}
