import type { ArgDef } from "./args.ts";
import { type CommandDef, descriptionOf } from "./command.ts";

/** A command's help page, plain text: what it does, how it is called, its options, an example. */
export async function renderUsage(cmd: CommandDef, path: readonly string[]): Promise<string> {
  const line = path.join(" ");
  const args = Object.entries(cmd.args ?? {});
  const positionals = args.filter(([, def]) => def.type === "positional");
  const options = args.filter(([, def]) => def.type !== "positional");
  const call = [line, ...(cmd.subCommands ? ["COMMAND"] : []), ...(options.length > 0 ? ["[options]"] : []), ...positionals.map(([name, def]) => positionalWord(name, def))];
  const out = [`Usage: ${call.join(" ")}`, "", cmd.meta.description];
  if (positionals.length > 0) out.push("", "Arguments:", ...columns(positionals.map(([name, def]) => [name.toUpperCase(), def.description])));
  if (cmd.subCommands) {
    const rows: [string, string][] = [];
    for (const [name, sub] of Object.entries(cmd.subCommands)) rows.push([name, await descriptionOf(sub)]);
    out.push("", "Commands:", ...columns(rows));
  }
  const optionRows = options.map(([name, def]): [string, string] => [optionWord(name, def), optionText(def)]);
  out.push("", "Options:", ...columns([...optionRows, ["-h, --help", "show this help"]]));
  out.push("", cmd.meta.examples.length > 1 ? "Examples:" : "Example:", ...cmd.meta.examples.map((e) => `  ${e}`));
  if (cmd.subCommands) out.push("", `${line} COMMAND --help shows a command's own options.`);
  return out.join("\n");
}

function positionalWord(name: string, def: ArgDef): string {
  const word = `${name.toUpperCase()}${def.type === "positional" && def.many ? "…" : ""}`;
  return def.type === "positional" && def.required === false ? `[${word}]` : word;
}

function optionWord(name: string, def: ArgDef): string {
  const alias = def.type !== "positional" && def.alias ? `-${def.alias}, ` : "";
  const value = def.type === "string" ? ` ${def.valueHint ?? name.toUpperCase()}` : "";
  return `${alias}--${name}${value}`;
}

function optionText(def: ArgDef): string {
  return def.type === "string" && def.default !== undefined ? `${def.description} (default: ${def.default})` : def.description;
}

function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
