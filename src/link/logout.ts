import { UserError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { forgetListing } from "../store/listings.ts";
import { deleteLogin, listLogins } from "../store/logins.ts";

/**
 * Forgets a login (its token, the sessions its clients were given and the deletes kept for them,
 * and the models listing kept for it): the one named, or the only one there is. Returns its name; no
 * login, no name among several, or a name that is not one, is a UserError naming the logins.
 */
export function logout(db: Db, name?: string): string {
  const logins = listLogins(db);
  if (logins.length === 0) throw new UserError("there is no login", 1);
  const names = logins.map((l) => l.name).join(", ");
  const chosen = name ?? (logins.length === 1 ? logins[0]?.name : undefined);
  if (!chosen) throw new UserError(`say which login: ${names}`, 2);
  if (!deleteLogin(db, chosen)) throw new UserError(`there is no login named ${chosen} (${names})`, 2);
  // What the instance listed for the forgotten token goes with it (a kept listing is its token's all the same).
  forgetListing(db, chosen);
  return chosen;
}
