import { defineCommand } from "./command.ts";
import { logout } from "../link/logout.ts";
import { createContext } from "../app/context.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "logout", description: DESCRIPTIONS.logout, examples: ["lembas logout", "lembas logout work"] },
  args: { name: { type: "positional", required: false, description: "the login's name (lembas status lists them)" } },
  run({ args }) {
    const name = logout(createContext().db(), args.name);
    console.log(`logged out of ${name}`);
  },
});
