import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { deleteLogin, listLogins } from "../store/logins.ts";
import { createContext } from "./context.ts";

export default defineCommand({
  meta: { name: "logout", description: "Forget a login (its token); the service drops its link" },
  args: { name: { type: "positional", required: false, description: "the login's name (lembas status lists them)" } },
  run({ args }) {
    const db = createContext().db();
    const logins = listLogins(db);
    if (logins.length === 0) throw new UserError("there is no login", 1);
    const name = args.name ?? (logins.length === 1 ? logins[0]?.name : undefined);
    if (!name) throw new UserError(`say which login: ${logins.map((l) => l.name).join(", ")}`, 2);
    if (!deleteLogin(db, name)) throw new UserError(`there is no login named ${name} (${logins.map((l) => l.name).join(", ")})`, 2);
    console.log(`logged out of ${name}`);
  },
});
