// Every C0 control but tab and newline, DEL, and the C1 controls (U+0080–U+009F: some terminals read U+009B as CSI).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// The skin-tone modifiers: terminals disagree on their width (tmux and VTE give 👍🏽 four columns,
// the UI library two), and a line one column wider than measured wraps and tears the frame.
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;

/**
 * Text from outside (the model, a command's output, a file, a title) as it may be drawn: an escape
 * sequence in it could move the cursor, clear the screen or retitle the terminal. Each control
 * character is shown as its picture (ESC as ␛) instead; tabs and newlines stay, carriage returns go.
 * Skin tones are left out (the emoji stays).
 */
export function plain(text: string): string {
  const toned = text.replace(SKIN_TONE, "");
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(toned)) return toned;
  return toned.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x0d) return "";
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return "\ufffd";
  });
}
