/** An escape sequence (an arrow key, a paste's brackets): not part of a token. */
const ESCAPES = /\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?/g;

/**
 * Reads a secret (a device token) at a terminal with echo off: stdin in raw mode, nothing shown
 * as it is typed. Enter ends it, Backspace takes back a character, Ctrl-U clears the line, and
 * Ctrl-C (or Ctrl-D on an empty line) restores the terminal and ends the process with 130.
 */
export async function readSecret(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  output.write(prompt);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.resume();
  let typed = "";
  const restore = () => {
    input.setRawMode(wasRaw);
    input.pause();
    output.write("\n");
  };
  return new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8").replace(ESCAPES, "")) {
        if (char === "\r" || char === "\n") {
          input.off("data", onData);
          restore();
          resolve(typed);
          return;
        }
        if (char === "\u0003" || (char === "\u0004" && typed === "")) {
          input.off("data", onData);
          restore();
          process.exit(130);
        }
        if (char === "\u007f" || char === "\b") typed = [...typed].slice(0, -1).join("");
        else if (char === "\u0015") typed = "";
        else if (char >= " ") typed += char;
      }
    };
    input.on("data", onData);
  });
}
