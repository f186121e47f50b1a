import { expect, test } from "bun:test";
import type { ModelEvent } from "../../src/model/events.ts";
import { ThinkTagSplitter } from "../../src/model/think-tags.ts";

/** The reasoning and the answer of a reply given as `deltas`. */
function split(deltas: string[]): { reasoning: string; text: string } {
  const s = new ThinkTagSplitter();
  const out: ModelEvent[] = [];
  for (const d of deltas) s.push(d, out);
  s.end(out);
  let reasoning = "";
  let text = "";
  for (const e of out) {
    if (e.type === "reasoning") reasoning += e.delta;
    if (e.type === "text") text += e.delta;
  }
  return { reasoning, text };
}

const chars = (s: string) => [...s];

test("a reply that opens with <think> gives its inside as reasoning, however the deltas cut the tags", () => {
  const reply = "\n<think>\nsteps 1 < 2\n</think>\n\nThe answer.";
  for (const deltas of [[reply], chars(reply), ["\n<", "think>\nsteps 1 <", " 2\n<", "/think", ">\n", "\nThe answer."]]) {
    expect(split(deltas)).toEqual({ reasoning: "steps 1 < 2\n", text: "The answer." });
  }
});

test("<think> later in an answer is part of the answer", () => {
  const reply = "Use the <think> tag like so: <think>x</think>";
  expect(split(chars(reply))).toEqual({ reasoning: "", text: reply });
  expect(split(["<b>bold</b>"])).toEqual({ reasoning: "", text: "<b>bold</b>" });
});

test("a reply that ends inside <think> was all reasoning, a partial closing tag included", () => {
  expect(split(["<think>still going </th"])).toEqual({ reasoning: "still going </th", text: "" });
  expect(split(["<thi"])).toEqual({ reasoning: "", text: "<thi" });
  expect(split(["  \n"])).toEqual({ reasoning: "", text: "" });
});
