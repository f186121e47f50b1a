/**
 * Terminal control sequences, whole: CSI (ESC [ or 0x9b … final byte), the string commands OSC,
 * DCS, SOS, PM and APC (ESC ] P X ^ _, or 0x9d 0x90 0x98 0x9e 0x9f, up to BEL or ST — or the end
 * of the text when unterminated), and any other ESC with its intermediate and final bytes.
 */
const SEQUENCES =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
/** What is left of control characters once the sequences are gone: C0 but whitespace, DEL, C1. */
const CONTROLS = /[\x00-\x08\x0e-\x1f\x7f-\x9f]/g;

/**
 * Text with terminal control removed — escape sequences as a whole, then any other control
 * character — so that printing it cannot retitle a window, move the cursor or ring the bell.
 * Whitespace controls (tab, newline) are left for the caller to fold.
 */
export function withoutControls(text: string): string {
  return text.replace(SEQUENCES, "").replace(CONTROLS, "");
}
