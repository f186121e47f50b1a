import { errorMessage } from "../../errors.ts";
import { logout } from "../../link/logout.ts";
import { listLogins } from "../../store/logins.ts";
import type { CommandHost } from "../command-host.ts";
import type { TuiCommand } from "../command-host.ts";
import { loginForm } from "../login-form.ts";

/** /login and /logout: the logins to LLeMbas instances, made and forgotten without leaving the terminal. */
export const LOGIN_COMMANDS: readonly TuiCommand[] = [
  {
    name: "login",
    description: "Log in to a LLeMbas instance (its URL and a device token), as lembas login does",
    run(app) {
      const close = app.present(
        loginForm(
          app,
          (lines) => {
            close();
            app.runtime.refreshLogins();
            for (const line of lines) app.transcript.line(line);
            app.render();
          },
          () => close(),
        ),
      );
    },
  },
  {
    name: "logout",
    description: "Forget a login (its token): /logout NAME, or pick one",
    hint: "[name]",
    async run(app, args) {
      const name = args || (await pickLogin(app));
      if (!name) return;
      try {
        say(app, `logged out of ${logout(app.runtime.ctx.db(), name)}`);
        app.runtime.refreshLogins();
      } catch (error) {
        say(app, errorMessage(error), "error");
      }
    },
  },
];

async function pickLogin(app: CommandHost): Promise<string | null> {
  const logins = listLogins(app.runtime.ctx.db());
  if (logins.length === 0) {
    say(app, "there is no login (/login makes one)");
    return null;
  }
  return app.pick(
    "Log out of",
    logins.map((l) => ({ value: l.name, label: l.name, description: l.url })),
  );
}

function say(app: CommandHost, line: string, level?: "error"): void {
  app.transcript.line(line, level);
  app.render();
}
