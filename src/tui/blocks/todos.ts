import type { TodoItem } from "../../tools/tool.ts";
import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";

/** The todo list, whole, as the model last wrote it. */
export class TodoBlock extends CachedBlock {
  private todos: readonly TodoItem[] = [];

  constructor(private readonly theme: Theme) {
    super();
  }

  set(todos: readonly TodoItem[]): void {
    this.todos = todos;
    this.invalidate();
  }

  protected draw(width: number): string[] {
    const t = this.theme;
    const done = this.todos.filter((x) => x.status === "completed").length;
    const lines = ["", t.bold(`☰ Todos (${done}/${this.todos.length} done)`)];
    for (const todo of this.todos) {
      const mark = todo.status === "completed" ? "☒ " : todo.status === "in_progress" ? "▶ " : "☐ ";
      const paint = todo.status === "completed" ? t.dim : todo.status === "in_progress" ? t.accent : (s: string) => s;
      lines.push(...hanging(plain(todo.content), width, `  ${mark}`, "    ").map(paint));
    }
    return lines;
  }
}
