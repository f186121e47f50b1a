/**
 * What the model is offered at each step: the tools' specs are made once per tool in a process
 * (zod → JSON schema costs milliseconds cold), the task tool that lists custom agents included.
 */
import { expect, test } from "bun:test";
import { offeredTools, toolSpecs } from "../../src/engine/toolset.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";

const model = { contextLength: 128_000 };
const agents = [
  { name: "reviewer", description: "Reviews a diff", writes: false },
  { name: "fixer", description: "Fixes what the reviewer found", writes: true },
];

const specsOfAStep = (listed = agents) => toolSpecs(offeredTools(ALL_TOOLS, model, { agents: listed }), model);

test("with custom agents, each step is offered the task tool made at the first, not made again", () => {
  const first = specsOfAStep();
  const task = first.find((spec) => spec.function.name === "task");
  expect(task?.function.description).toContain("- fixer: Fixes what the reviewer found (may change files)");
  const second = specsOfAStep(agents.map((agent) => ({ ...agent })));
  expect(second.find((spec) => spec.function.name === "task")).toBe(task);
  expect(second).toEqual(first);
});

test("other agents get a task tool of their own, listing them", () => {
  const before = specsOfAStep().find((spec) => spec.function.name === "task");
  const other = specsOfAStep([{ name: "writer", description: "Writes docs", writes: false }]).find((spec) => spec.function.name === "task");
  expect(other).not.toBe(before);
  expect(other?.function.description).toContain("- writer: Writes docs\n");
  expect(other?.function.description).not.toContain("reviewer");
  expect(other?.function.parameters).toEqual(before?.function.parameters);
});

test("lsp is offered only while a language server runs for the project", () => {
  const names = (lsp: boolean) => offeredTools(ALL_TOOLS, model, { lsp }).map((t) => t.name);
  expect(names(false)).not.toContain("lsp");
  expect(names(true)).toContain("lsp");
  expect(offeredTools(ALL_TOOLS, model).map((t) => t.name)).not.toContain("lsp");
});
