// bench/paste.ts's linear floor: the least a terminal app can do with a bracketed paste. Raw stdin
// in bracketed-paste mode; each chunk is kept and only it (and the marker's length before it) is
// searched for the end marker; the paste is then joined once and its lines counted (CR, LF or CRLF), and the app
// says `got N lines`. What is left over is the pty's and tmux's delivery of the bytes.
const START = "\x1b[200~";
const END = "\x1b[201~";
let chunks: string[] | null = null;
let tail = "";
process.stdin.setRawMode(true);
process.stdin.setEncoding("utf8");
process.stdout.write("\x1b[?2004hready\r\n");
process.stdin.on("data", (data: string) => {
  if (data.includes("\x04")) {
    process.stdout.write("\x1b[?2004l");
    process.exit(0);
  }
  if (chunks === null) {
    const at = data.indexOf(START);
    if (at < 0) return;
    chunks = [];
    data = data.slice(at + START.length);
    tail = "";
  }
  const seen = tail + data;
  const end = seen.indexOf(END);
  if (end < 0) {
    chunks.push(data);
    tail = seen.slice(-(END.length - 1));
    return;
  }
  chunks.push(data);
  const text = chunks.join("");
  const pasted = text.slice(0, text.length - data.length - tail.length + end);
  chunks = null;
  // tmux sends each line break as CR (paste-buffer without -r), a terminal as it was copied.
  const lines = (pasted.match(/\r\n|\r|\n/g)?.length ?? 0) + 1;
  process.stdout.write(`got ${lines} lines\r\n`);
});
