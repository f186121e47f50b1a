import type { ThemeName } from "./theme.ts";
import type { TuiRuntime } from "./runtime.ts";

/** config.yaml's tui.vim; a config that cannot be read here was said already where it is read. */
export function configuredVim(runtime: TuiRuntime): boolean {
  try {
    return runtime.ctx.config().tui.vim;
  } catch {
    return false;
  }
}

/** config.yaml's theme; a config that cannot be read here was said already where it is read. */
export function configuredTheme(runtime: TuiRuntime): ThemeName {
  try {
    return runtime.ctx.config().theme;
  } catch {
    return "dark";
  }
}
