import type { EngineEvent } from "../bus/index.ts";

/** `lembas run`'s output: the answer on stdout, what the tools do on stderr; or every event as NDJSON. */
export function printEvent(event: EngineEvent, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  switch (event.type) {
    case "text":
      process.stdout.write(event.delta);
      return;
    case "tool_start":
      process.stderr.write(`› ${event.title}\n`);
      return;
    case "tool_end":
      if (event.isError) process.stderr.write(`  ${firstLine(event.output)}\n`);
      return;
    case "tool_denied":
      process.stderr.write(`  refused: ${event.reason}${event.feedback ? ` (${event.feedback})` : ""}\n`);
      return;
    case "notice":
      process.stderr.write(`lembas: ${event.message}\n`);
      return;
    case "compacted":
      process.stderr.write("lembas: the history was compacted\n");
      return;
    default:
      return;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 197)}…` : line;
}
