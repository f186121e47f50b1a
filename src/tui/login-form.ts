import { login, loginLines, replacedLine } from "../link/login.ts";
import type { CommandHost } from "./command-host.ts";
import { Form } from "./form.ts";

/**
 * The form that logs in to a LLeMbas instance, as `lembas login URL` does (the same function):
 * its URL, a device token, and a name if the person wants one. done gets what the login did.
 */
export function loginForm(app: CommandHost, done: (lines: string[]) => void | Promise<void>, cancel: () => void): Form {
  return new Form(
    "Log in to a LLeMbas instance",
    ["Make a device token in the instance's web UI, then give its URL and the token."],
    [
      { label: "URL", placeholder: "https://lembas.example.org" },
      { label: "device token", secret: true },
      { label: "name (optional)", placeholder: "from the host" },
    ],
    app.theme,
    {
      async submit([url = "", token = "", name = ""]) {
        if (!url) return "give the instance's URL, e.g. https://lembas.example.org";
        if (!token) return "give the device token (the instance's web UI makes one)";
        const { ctx } = app.runtime;
        const result = await login({ url, token, ...(name ? { name } : {}), insecure: false, db: ctx.db(), config: ctx.config(), paths: ctx.paths });
        const replaced = replacedLine(result);
        await done([...(replaced ? [replaced] : []), ...loginLines(result)]);
        return null;
      },
      cancel,
      changed: () => app.render(),
    },
  );
}
