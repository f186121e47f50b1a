import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { statusLines } from "../app/status-report.ts";

export default defineCommand({
  meta: { name: "status", description: "Each login, its link's state, its balance, and the sessions it holds", examples: ["lembas status"] },
  async run() {
    for (const line of await statusLines(createContext())) console.log(line);
  },
});
