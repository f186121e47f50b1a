import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { withCommandGitConfig } from "../project/git-safety.ts";
import { type ProtectedPaths, protectedPaths } from "../project/protected.ts";
import type { Capabilities, CommandSetup } from "../tools/tool.ts";
import { toolEnvironment } from "../tools/environment.ts";

/**
 * What is made of some of the config's values, made again only when one of them changed. A live
 * config (config/live.ts) hands new objects once config.yaml is read again: a tool call costs a few
 * identity checks, and an edit of another key one comparison of these parts, never a glob compiled
 * or the environment filtered again.
 */
export function derived<T>(parts: () => readonly unknown[], make: () => T): () => T {
  let seen: readonly unknown[] = [];
  let key: string | null = null;
  let made: T | undefined;
  return () => {
    const now = parts();
    if (made !== undefined && seen.length === now.length && seen.every((part, i) => part === now[i])) return made;
    seen = now;
    const nowKey = JSON.stringify(now);
    if (made === undefined || nowKey !== key) made = make();
    key = nowKey;
    return made;
  };
}

/** config.yaml's `protected:` as it says it now, with the built-in list and lembas's own dirs. */
export function liveProtectedPaths(config: Pick<Config, "protected">, dirs: readonly string[]): () => ProtectedPaths {
  return derived(
    () => [config.protected],
    () => protectedPaths(config.protected, dirs),
  );
}

/**
 * How tools start commands, from the next call as config.yaml says it now: the environment
 * (`tools.env_passthrough`, the connections' keys left out) and the dirs a sandbox hides.
 */
export function liveCommands(config: Pick<Config, "tools" | "connections">, env: Env, hidden: readonly string[]): CommandSetup {
  // git in it holds config no repository the model wrote can undo (see withCommandGitConfig).
  const made = derived(
    () => [config.tools, config.connections],
    () => withCommandGitConfig(toolEnvironment(config, env)),
  );
  return {
    get env() {
      return made();
    },
    hidden,
  };
}

/** What fetch may reach (`fetch.allow_private`), read at each call. */
export function liveWeb(config: Pick<Config, "fetch">): Capabilities["web"] {
  return {
    get allowPrivate() {
      return config.fetch.allow_private;
    },
  };
}
