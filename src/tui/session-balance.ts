import { listLogins } from "../store/logins.ts";
import { BalanceWatch, type BalanceShown } from "./balance.ts";
import type { TuiRuntime } from "./runtime.ts";

/**
 * The balance watch of the terminal's session: its login is the one whose connection serves the
 * session's model (config.yaml's, else the first login's first, as the engine resolves it).
 */
export function watchBalance(runtime: TuiRuntime, onChange: (shown: BalanceShown) => void): BalanceWatch {
  return new BalanceWatch({
    onChange,
    async loginOf() {
      if (!runtime.hasSession) return null;
      const logins = listLogins(runtime.ctx.db());
      if (logins.length === 0) return null;
      const model = await runtime.models.resolve(runtime.session.model ?? runtime.defaultModel).catch(() => null);
      return logins.find((login) => login.name === model?.connection) ?? null;
    },
  });
}
