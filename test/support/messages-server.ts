/**
 * Anthropic's Messages API for the scripted model: `POST /v1/messages` replays recorded streams
 * (test/model/fixtures/messages/*.ts, each citing where its shape is documented) and records what
 * lembas sent. Mount it with `startModel({ routes: [messagesRoute(...)] })`.
 */
import { FixtureRoute, type Replay } from "./fixture-route.ts";

/** The error body Messages answers a failed request with (docs.anthropic.com/en/api/errors). */
export function messagesError(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

/** A Messages route replaying `replays` in order, then `fallback` (none: a 500 that says nothing is scripted). */
export function messagesRoute(replays: Replay[], fallback: Replay | null = null): FixtureRoute {
  return new FixtureRoute("/messages", replays, fallback);
}
