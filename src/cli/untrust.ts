import { resolve } from "node:path";
import { defineCommand } from "./command.ts";
import { UserError } from "../errors.ts";
import { untrustDir } from "../store/trust.ts";
import { createContext } from "../app/context.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "untrust", description: DESCRIPTIONS.untrust, examples: ["lembas untrust ~/work/app"] },
  args: { dir: { type: "positional", required: true, description: "the directory" } },
  run({ args }) {
    const dir = resolve(args.dir);
    if (!untrustDir(createContext().db(), dir)) throw new UserError(`${dir} was not trusted`, 1);
    console.log(`untrusted ${dir}`);
  },
});
