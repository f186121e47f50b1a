import { defineCommand } from "./command.ts";
import { logout } from "../link/logout.ts";
import { createContext } from "../app/context.ts";

export default defineCommand({
  meta: { name: "logout", description: "Forget a login (its token); the service drops its link", examples: ["lembas logout", "lembas logout work"] },
  args: { name: { type: "positional", required: false, description: "the login's name (lembas status lists them)" } },
  run({ args }) {
    const name = logout(createContext().db(), args.name);
    console.log(`logged out of ${name}`);
  },
});
