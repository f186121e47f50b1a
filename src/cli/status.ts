import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { statusLines } from "../app/status-report.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "status", description: DESCRIPTIONS.status, examples: ["lembas status"] },
  async run() {
    for (const line of await statusLines(createContext())) console.log(line);
  },
});
