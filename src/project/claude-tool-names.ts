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

const LEMBAS_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(CLAUDE_NAMES).map(([ours, theirs]) => [theirs, ours] as const));

/** Claude Code's name of a lembas tool, or undefined when it has none. */
export function claudeToolName(lembasName: string): string | undefined {
  return CLAUDE_NAMES[lembasName];
}

/** The lembas tool a name means: Claude Code's name of it, or already lembas's (an MCP tool's, an unknown one: as written). */
export function lembasToolName(name: string): string {
  return LEMBAS_NAMES.get(name) ?? name;
}
