import type { ConfigNews } from "../config/live.ts";
import type { Engine } from "../engine/engine.ts";
import type { Context } from "./context.ts";

/** The sentence for a reading of config.yaml after the first, or null when nothing needs saying. */
export function configNewsLine(news: ConfigNews, file: string): string | null {
  if (news.kind === "refused") return news.sentence;
  return news.fixed ? `${file} reads again: what it says is in force from the next turn` : null;
}

/**
 * What an engine does when config.yaml, edited while it runs, is read again: every session it holds
 * is told (a notice, which its front ends show) when the file is refused and the last good one kept,
 * and when it reads again; connections added, changed or taken out are listed afresh (`relist`), for
 * the next session's model. Returns how to stop.
 */
export function followConfig(ctx: Context, engine: Engine, relist: () => void): () => void {
  let connections = JSON.stringify(ctx.config().connections);
  return ctx.onConfigNews((news) => {
    if (news.kind === "applied") {
      const now = JSON.stringify(ctx.config().connections);
      if (now !== connections) relist();
      connections = now;
    }
    const line = configNewsLine(news, ctx.paths.configFile);
    if (line === null) return;
    for (const session of engine.list()) session.notice(line, news.kind === "refused" ? "warn" : "info");
  });
}
