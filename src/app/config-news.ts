import type { ConfigNews } from "../config/live.ts";
import type { Engine } from "../engine/engine.ts";
import type { Context } from "./context.ts";

/** The sentence for a reading of config.yaml after the first, or null when nothing needs saying. */
export function configNewsLine(news: ConfigNews, file: string): string | null {
  if (news.kind === "refused") return news.sentence;
  return news.fixed ? `${file} reads again: what it says is in force from the next turn` : null;
}

/**
 * Every session this engine holds is told (a notice, which its front ends show) when config.yaml,
 * edited while it runs, is refused and the last good one kept, and when it reads again. Returns how to stop.
 */
export function tellSessionsOfConfig(ctx: Context, engine: Engine): () => void {
  return ctx.onConfigNews((news) => {
    const line = configNewsLine(news, ctx.paths.configFile);
    if (line === null) return;
    for (const session of engine.list()) session.notice(line, news.kind === "refused" ? "warn" : "info");
  });
}
