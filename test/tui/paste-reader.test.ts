/**
 * The terminal's paste reader (src/tui/paste-reader.ts), in front of pi-tui's own stdin buffer as
 * in the program: each bracketed paste reaches pi-tui's reader as one chunk, so that it reads it
 * once, whole, in order, however the terminal cut it; keys go on as they come.
 */
import { describe, expect, test } from "bun:test";
import { StdinBuffer } from "@earendil-works/pi-tui";
import { PASTE_END, PASTE_START, PasteReader } from "../../src/tui/paste-reader.ts";

type Event = { paste: string } | { key: string };

/** Our reader in front of pi-tui's, as paste-terminal.ts sets them: what pi-tui's emits, and the chunks it was given. */
function reading(waits = { partialMs: 10, unterminatedMs: 100 }, escapeTimeout = 10) {
  const events: Event[] = [];
  const given: string[] = [];
  const library = new StdinBuffer({ escapeTimeout });
  library.on("data", (key: string) => events.push({ key }));
  library.on("paste", (paste: string) => events.push({ paste }));
  const reader = new PasteReader((data) => {
    given.push(data);
    library.process(data);
  }, waits);
  return { events, given, reader, keys: () => events.flatMap((e) => ("key" in e ? [e.key] : [])).join("") };
}

/** `text` cut into chunks of `size` characters. */
const chunked = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const lines = (n: number) => Array.from({ length: n }, (_, i) => `log line ${i}: something happened`).join("\n");

describe("a bracketed paste read in chunks", () => {
  test("a multi-MB paste in 4 KiB chunks reaches pi-tui's reader as one chunk, whole, once", () => {
    const text = lines(100_000);
    const { events, given, reader } = reading();
    for (const chunk of chunked(`${PASTE_START}${text}${PASTE_END}`, 4096)) reader.read(chunk);
    expect(given).toHaveLength(1);
    expect(events).toEqual([{ paste: text }]);
  });

  test("its markers cut at every place between two chunks", () => {
    const whole = `ab${PASTE_START}one\ntwo${PASTE_END}cd`;
    for (let cut = 1; cut < whole.length; cut++) {
      const { events, reader, keys } = reading();
      reader.read(whole.slice(0, cut));
      reader.read(whole.slice(cut));
      expect({ cut, pastes: events.filter((e) => "paste" in e), keys: keys() }).toEqual({ cut, pastes: [{ paste: "one\ntwo" }], keys: "abcd" });
      // The paste between the keys, in the order typed.
      expect(events.findIndex((e) => "paste" in e)).toBe(2);
    }
  });

  test("a chunk at a time of one character", () => {
    const { events, reader } = reading();
    for (const c of `x${PASTE_START}p\nq${PASTE_END}y`) reader.read(c);
    expect(events).toEqual([{ key: "x" }, { paste: "p\nq" }, { key: "y" }]);
  });

  test("keys typed after it in the same chunk, and a second paste in that chunk, each in order", () => {
    const { events, reader } = reading();
    reader.read(`${PASTE_START}first${PASTE_END}\r${PASTE_START}second${PASTE_END}z`);
    expect(events).toEqual([{ paste: "first" }, { key: "\r" }, { paste: "second" }, { key: "z" }]);
  });

  test("a start marker in the pasted text is text: the paste ends at its first end marker", () => {
    const { events, reader } = reading();
    reader.read(`${PASTE_START}outer ${PASTE_START}inner`);
    reader.read(`${PASTE_END} after`);
    expect(events.filter((e) => "paste" in e)).toEqual([{ paste: `outer ${PASTE_START}inner` }]);
    expect(events.filter((e) => "key" in e).map((e) => ("key" in e ? e.key : "")).join("")).toBe(" after");
  });

  test("a lone Escape key, which may begin a paste's marker, goes on once nothing follows it", async () => {
    const { events, reader } = reading();
    reader.read("\x1b");
    expect(events).toEqual([]);
    await Bun.sleep(100);
    expect(events).toEqual([{ key: "\x1b" }]);
  });

  test("a lone Escape goes to pi-tui's reader at once, which alone waits on it: a key typed after its wait is a key, not Alt+key", () => {
    const { given, reader } = reading();
    reader.read("\x1b");
    expect(given).toEqual(["\x1b"]);
    reader.read("x\x1b");
    expect(given).toEqual(["\x1b", "x\x1b"]);
  });

  test("two Escapes read at once reach pi-tui as one chunk, as they came (the rewind's Esc Esc)", async () => {
    const { events, given, reader } = reading();
    reader.read("\x1b\x1b");
    await Bun.sleep(100);
    expect(given).toEqual(["\x1b\x1b"]);
    expect(events).toEqual([{ key: "\x1b\x1b" }]);
  });

  test("a start marker whose rest comes after the reader stopped waiting is still a paste: pi-tui's reader joins them (over SSH it waits 100 ms)", async () => {
    const { events, reader } = reading({ partialMs: 10, unterminatedMs: 100 }, 100);
    reader.read("x\x1b");
    await Bun.sleep(40);
    reader.read("[200~late\nstart\x1b[201~k");
    expect(events).toEqual([{ key: "x" }, { paste: "late\nstart" }, { key: "k" }]);
  });

  test("a paste whose end never comes ends once nothing more is read; what is typed next is keys", async () => {
    const { events, reader } = reading();
    reader.read(`${PASTE_START}never ended`);
    reader.read(" and more");
    expect(events).toEqual([]);
    const until = Date.now() + 5000;
    while (events.length === 0 && Date.now() < until) await Bun.sleep(20);
    expect(events).toEqual([{ paste: "never ended and more" }]);
    reader.read("k");
    expect(events.at(-1)).toEqual({ key: "k" });
  });

  test("clear drops a paste under way: nothing of it is handed on later", async () => {
    const { events, reader } = reading();
    reader.read(`${PASTE_START}half`);
    reader.clear();
    await Bun.sleep(200);
    expect(events).toEqual([]);
    reader.read("k");
    expect(events).toEqual([{ key: "k" }]);
  });
});
