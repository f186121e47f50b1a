import { todoTool } from "../tools/todo.ts";
import { storedToolTitle } from "../transcript/tool-titles.ts";
import type { StoredCalls } from "./transcript.ts";

/** A resumed session's tool calls as the transcript shows them, read with the tools' own schemas and titles. */
export const storedCalls: StoredCalls = {
  title: storedToolTitle,
  todos: (args) => todoTool.schema.safeParse(args).data?.todos,
};
