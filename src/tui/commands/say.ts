import type { CommandHost } from "../command-host.ts";

/** One line in the transcript, drawn now. */
export function say(app: CommandHost, text: string, level: "info" | "warn" | "error" = "info"): void {
  app.transcript.line(text, level);
  app.render();
}

/** How long ago, in the largest unit that fits: 5s ago, 3m ago, 2h ago, 4d ago. */
export function ago(at: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}
