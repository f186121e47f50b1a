import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { defineCommand } from "./command.ts";
import { UserError } from "../errors.ts";
import { realOrResolved, trustDir, trustedDirs } from "../store/trust.ts";
import { createContext } from "../app/context.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export function existingDir(dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new UserError(`${path} is not a directory`, 2);
  return path;
}

export default defineCommand({
  meta: { name: "trust", description: DESCRIPTIONS.trust, examples: ["lembas trust", "lembas trust ~/work/app", "lembas trust --list"] },
  args: {
    dir: { type: "positional", required: false, description: "the directory" },
    list: { type: "boolean", description: "list the trusted directories" },
  },
  run({ args }) {
    const db = createContext().db();
    if (args.list) {
      for (const dir of trustedDirs(db)) console.log(dir);
      return;
    }
    const dir = existingDir(args.dir ?? process.cwd());
    trustDir(db, dir);
    const real = realOrResolved(dir);
    console.log(real === dir ? `trusted ${dir}` : `trusted ${real} (${dir} leads there)`);
  },
});
