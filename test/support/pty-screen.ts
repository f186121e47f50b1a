import type { Pty } from "../../src/terminal/pty.ts";

/** What a program in a real terminal printed (carriage returns dropped), a wait for text, and a way to type. */
export function screenOf(pty: Pty) {
  let screen = "";
  const decoder = new TextDecoder();
  pty.onData((bytes) => {
    screen += decoder.decode(bytes, { stream: true }).replace(/\r/g, "");
  });
  return {
    screen: () => screen,
    async waitFor(text: string, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (!screen.includes(text)) {
        if (Date.now() > end) throw new Error(`never printed ${JSON.stringify(text)}; got:\n${screen}`);
        await Bun.sleep(20);
      }
    },
    type: (keys: string) => pty.write(keys),
    exited: pty.exited,
  };
}
