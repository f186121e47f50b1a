/**
 * Claude Code's names of lembas's tools, one table for every file written for Claude Code that
 * names tools: a hook's matcher ("Bash", "Edit|Write"), an agent file's `tools` ("Read, Grep").
 */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  bash: "Bash",
  read: "Read",
  write: "Write",
  edit: "Edit",
  multi_edit: "MultiEdit",
  glob: "Glob",
  grep: "Grep",
  list: "LS",
  fetch: "WebFetch",
  todo: "TodoWrite",
  task: "Task",
};

/**
 * Claude Code's other names for what a lembas tool does, read where a file names tools (an agent's
 * `tools`), never written back: its shell-job tools, older names, and those of lembas's own tools
 * hooks do not match by a Claude Code name.
 */
const CLAUDE_ALIASES: Readonly<Record<string, string>> = {
  Agent: "task",
  BashOutput: "job",
  KillShell: "job",
  KillBash: "job",
  TaskOutput: "job",
  TaskStop: "job",
  Skill: "skill",
  TodoRead: "todo",
  NotebookRead: "read",
  AskUserQuestion: "ask_user",
  ExitPlanMode: "plan_submit",
};

/** Claude Code's tools lembas has nothing like: an agent file that names one gets the rest, told so. */
const CLAUDE_ONLY: ReadonlySet<string> = new Set([
  "WebSearch",
  "NotebookEdit",
  "LSP",
  "SlashCommand",
  "EnterPlanMode",
  "EnterWorktree",
  "ExitWorktree",
  "CronCreate",
  "CronDelete",
  "CronList",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
  "Artifact",
  "Monitor",
  "PowerShell",
  "SendMessage",
  "TeamCreate",
  "TeamDelete",
  "ToolSearch",
]);

const LEMBAS_NAMES: ReadonlyMap<string, string> = new Map([...Object.entries(CLAUDE_NAMES).map(([ours, theirs]) => [theirs, ours] as const), ...Object.entries(CLAUDE_ALIASES)]);

/** Claude Code's name of a lembas tool, or undefined when it has none. */
export function claudeToolName(lembasName: string): string | undefined {
  return CLAUDE_NAMES[lembasName];
}

/**
 * The lembas tool a name means: Claude Code's name of it (`Task(worker)`, `Agent(worker)`: the task
 * tool), or already lembas's (an MCP tool's, an unknown one: as written).
 */
export function lembasToolName(name: string): string {
  const base = /^(Agent|Task)\(.*\)$/.exec(name)?.[1] ?? name;
  return LEMBAS_NAMES.get(base) ?? base;
}

/** Whether NAME is one of Claude Code's tools that lembas has nothing like (WebSearch, NotebookEdit, …). */
export function isClaudeOnlyTool(name: string): boolean {
  return CLAUDE_ONLY.has(name);
}
