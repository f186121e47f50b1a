import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";
import { type LibraryBox, libraryBox } from "./support.ts";

let box: LibraryBox;
beforeEach(async () => {
  box = await libraryBox();
});
afterEach(() => box.close());

type JsonEvent = { type: string; name?: string; output?: string; isError?: boolean };

function toolNames(body: { tools?: unknown }): string[] {
  return (Array.isArray(body.tools) ? body.tools : []).map((t: { function: { name: string } }) => t.function.name);
}

describe("the library tool in a turn", () => {
  test("with documents, the tool is offered, called, and its result cites each passage as path:lines", async () => {
    mkdirSync(join(box.project, "docs"));
    writeFileSync(join(box.project, "docs/spec.md"), "# Spec\n\nintro\n\n## Retries\n\nA request that fails with 503 is retried three times with backoff.\n");
    const added = await box.lembas(["library", "add", "docs"]);
    expect(added.code).toBe(0);
    box.model.push(
      step({ toolCalls: [{ name: "library", arguments: { query: "how often is a failed request retried", limit: 2 } }] }),
      step({ text: "Three times, per docs/spec.md:5-7." }),
    );
    const result = await box.lembas(["run", "--yes", "--format", "json", "how are requests retried?"]);
    expect(result.code).toBe(0);
    const steps = box.model.requests.filter((r) => isStep(r.body));
    expect(toolNames(steps[0]?.body ?? {})).toContain("library");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as JsonEvent);
    const end = events.find((e) => e.type === "tool_end" && e.name === "library");
    expect(end?.isError).toBeFalsy();
    expect(end?.output).toContain("[1] docs/spec.md:5-7 (score ");
    expect(end?.output).toContain("retried three times with backoff");
    // The model got the same result as its tool message.
    const sent = steps[1]?.body.messages?.find((m) => m.role === "tool");
    expect(contentText(sent?.content)).toContain("docs/spec.md:5-7");
    // The query was embedded alone (the project's code index, on with an embedding model, may embed its own chunks beside it).
    expect(box.model.embeddingRequests.map((r) => r.input)).toContainEqual(["how often is a failed request retried"]);
  });

  test("with an empty library, or library: lembas written with no login that has the account's, the tool is not offered", async () => {
    box.model.push(step({ text: "fine" }));
    await box.lembas(["run", "--yes", "hello"]);
    writeFileSync(join(box.project, "a.md"), "words\n");
    await box.lembas(["library", "add", "a.md"]);
    appendFileSync(join(box.configDir, "config.yaml"), "library: lembas\n");
    box.model.push(step({ text: "fine" }));
    const second = await box.lembas(["run", "--yes", "hello again"]);
    expect(second.code).toBe(0);
    const steps = box.model.requests.filter((r) => isStep(r.body));
    expect(steps).toHaveLength(2);
    for (const s of steps) expect(toolNames(s.body)).not.toContain("library");
  });
});
