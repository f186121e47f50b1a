import { askUserTool } from "./ask-user.ts";
import { bashTool } from "./bash.ts";
import { codeSearchTool } from "./code-search.ts";
import { editTool } from "./edit.ts";
import { fetchTool } from "./fetch.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { jobTool } from "./job.ts";
import { libraryTool } from "./library.ts";
import { listTool } from "./list.ts";
import { lspTool } from "./lsp.ts";
import { multiEditTool } from "./multi-edit.ts";
import { planSubmitTool } from "./plan-submit.ts";
import { readTool } from "./read.ts";
import { settingsTool } from "./settings.ts";
import { skillTool } from "./skill.ts";
import { taskTool } from "./task.ts";
import { primeSchemas, type Tool } from "./tool.ts";
import { todoTool } from "./todo.ts";
import { webSearchTool } from "./web-search.ts";
import { writeTool } from "./write.ts";

/** Every tool, in the order the model is shown them. */
export const ALL_TOOLS: Tool[] = [
  readTool,
  writeTool,
  editTool,
  multiEditTool,
  bashTool,
  jobTool,
  grepTool,
  globTool,
  codeSearchTool,
  listTool,
  lspTool,
  fetchTool,
  webSearchTool,
  libraryTool,
  taskTool,
  skillTool,
  todoTool,
  askUserTool,
  planSubmitTool,
  settingsTool,
];

/** Stamped in by build.ts: the schemas of the tools above, so the binary does not convert them at run time. */
declare const LEMBAS_TOOL_SCHEMAS: Record<string, Record<string, unknown>> | undefined;
if (typeof LEMBAS_TOOL_SCHEMAS !== "undefined") primeSchemas(ALL_TOOLS, LEMBAS_TOOL_SCHEMAS);

const BY_NAME = new Map(ALL_TOOLS.map((tool) => [tool.name, tool]));

/** The tool with this name, if there is one. */
export function toolByName(name: string): Tool | undefined {
  return BY_NAME.get(name);
}
