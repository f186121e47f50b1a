import { z } from "zod";
import { ok } from "./result.ts";
import { defineTool, type TodoItem } from "./tool.ts";
import description from "./todo.txt" with { type: "text" };

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    todos: z
      .array(
        z.object({
          content: z.string().min(1),
          status: z.enum(["pending", "in_progress", "completed"]),
          priority: z.enum(["high", "medium", "low"]).optional(),
        }),
      ),
  });

const MARK: Record<TodoItem["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/** todo: replaces the session's task list and shows it back. */
export const todoTool = defineTool({
  name: "todo",
  description,
  brief: "Sets the task list the person sees: the whole list each call, one item in_progress. For work of three steps or more.",
  schema,
  permission: "none",
  needs: ["todos"],
  kind: "think",
  title: (input) => {
    const done = input.todos.filter((t) => t.status === "completed").length;
    return `Update the task list (${done}/${input.todos.length} done)`;
  },
  paths: () => [],
  async execute(input, ctx) {
    const todos: TodoItem[] = input.todos.map(({ content, status, priority }) => (priority ? { content, status, priority } : { content, status }));
    ctx.todos.set(todos);
    return ok(formatTodos(todos), { meta: { todos: todos.length } });
  },
});

/** The list as the model reads it back: one line an item, with its state. */
export function formatTodos(todos: TodoItem[]): string {
  if (todos.length === 0) return "The task list is now empty.";
  const done = todos.filter((t) => t.status === "completed").length;
  const lines = todos.map((t) => `${MARK[t.status]} ${t.content}${t.priority ? ` (${t.priority})` : ""}`);
  return `Task list (${done} of ${todos.length} completed):\n${lines.join("\n")}`;
}
