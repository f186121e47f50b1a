import { setConfigText } from "../../app/settings.ts";
import { errorMessage } from "../../errors.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /vim: vim keys in the composer on or off, now and from the next start (config.yaml's tui.vim). */
export function vim(app: CommandHost): void {
  const on = app.toggleVim();
  const now = on ? "vim mode on: Esc for normal mode, i to type, Enter sends in either" : "vim mode off";
  try {
    setConfigText(app.runtime.ctx.paths.configFile, "tui.vim", String(on));
    say(app, `${now} (kept in config.yaml as tui.vim: ${on})`);
  } catch (error) {
    say(app, `${now} until lembas ends; config.yaml was not changed: ${errorMessage(error)}`, "warn");
  }
}
