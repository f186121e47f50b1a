/**
 * The cards of the sessions terminals share (approvals, ask_user questions, plans), at the
 * service's end. A terminal sends each card it shows as the link's own request over the IPC
 * (`session/request_permission`, `_lembas/question`, `_lembas/plan`, patient); the service sends it
 * on every link whose client said `_meta.lembas` (questions and plans only to protocol 2 or later),
 * and again on each link that comes up while it is open. Cards are keyed by session and
 * toolCallId; several may be open at once.
 *
 * The first answer wins. A link's answer is the terminal's request's result, and the other links
 * hear `_lembas/permission/settled`. The terminal's `_lembas/permission/settled` (answered there,
 * or its turn let go of it) sends settled on every link and answers the terminal's request with an
 * error (it is settled there already). A link's later answer to a card settled is read and dropped.
 * Patient cards are never timed out here: a person may be at the terminal.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { acp } from "../rpc/agent.ts";
import type { AnyMessage } from "../rpc/stream.ts";
import type { Outlet } from "./outlet.ts";

/** The card requests a terminal sends, and what kind each is. */
export const CARD_METHODS = {
  "session/request_permission": "permission",
  "_lembas/question": "question",
  "_lembas/plan": "plan",
} as const;
export type CardMethod = keyof typeof CARD_METHODS;

const PermissionParams = z.looseObject({ sessionId: z.string().min(1), toolCall: z.looseObject({ toolCallId: z.string().min(1) }), options: z.array(z.unknown()) });
const QuestionParams = z.looseObject({ sessionId: z.string().min(1), toolCallId: z.string().min(1), questions: z.array(z.unknown()).min(1) });
const PlanParams = z.looseObject({ sessionId: z.string().min(1), toolCallId: z.string().min(1), path: z.string(), text: z.string() });
const SettledParams = z.object({ sessionId: z.string().min(1), toolCallId: z.string().min(1) });

/** The ids of the requests sent to links: a link's answer with one is this module's. */
const ID_PREFIX = "lembas-card-";

/** The code of the error a terminal's card request is answered with when nobody on the web answered it. */
const NOT_ANSWERED = -32800;

type OpenCard = {
  owner: object;
  key: string;
  sessionId: string;
  toolCallId: string;
  method: CardMethod;
  params: unknown;
  answer(result: unknown): void;
  letGo(why: string): void;
  /** The link requests out for it, by request id. */
  asked: Map<string, Outlet>;
};

export class ShareCards {
  private readonly cards = new Map<string, OpenCard>();
  private readonly asked = new Map<string, OpenCard>();
  private readonly outlets = new Set<Outlet>();
  /** Links whose client answered a question or plan with method-not-found: protocol 1 from then on. */
  private readonly protocol1 = new WeakSet<Outlet>();

  /** @param sharedBy whether `owner` (a terminal's IPC connection) shares the session now. */
  constructor(private readonly sharedBy: (sessionId: string, owner: object) => boolean) {}

  /**
   * A terminal's card: sent on every link; resolves with the first link's answer, or rejects when
   * the terminal settled it, let go of the session, or sent it again. -32602 for bad params or a
   * session that terminal does not share.
   */
  open(owner: object, method: CardMethod, raw: unknown): Promise<unknown> {
    const { sessionId, toolCallId } = cardIds(method, raw);
    if (!this.sharedBy(sessionId, owner)) throw invalid(`session ${sessionId} is not shared by this terminal`);
    const key = keyOf(sessionId, toolCallId);
    const params = patient(raw);
    return new Promise<unknown>((resolve, reject) => {
      const answer = (result: unknown) => resolve(result);
      const letGo = (why: string) => reject(new acp.RequestError(NOT_ANSWERED, why));
      const before = this.cards.get(key);
      if (before && before.owner === owner) {
        // Sent again (the terminal shared again): the links already have it; this request is the one answered.
        before.letGo("the card was sent again");
        Object.assign(before, { answer, letGo, params, method });
        return;
      }
      if (before) this.close(before, "another terminal shares the session now");
      const card: OpenCard = { owner, key, sessionId, toolCallId, method, params, answer, letGo, asked: new Map() };
      this.cards.set(key, card);
      for (const outlet of this.outlets) this.ask(card, outlet);
    });
  }

  /** The terminal's `_lembas/permission/settled`: its card is taken down on every link. */
  settled(owner: object, raw: unknown): void {
    const parsed = SettledParams.safeParse(raw);
    if (!parsed.success) return;
    const card = this.cards.get(keyOf(parsed.data.sessionId, parsed.data.toolCallId));
    if (!card || card.owner !== owner) return;
    this.close(card, "the card was answered at the terminal");
  }

  /** The session is no longer shared (left, its terminal gone): its cards are taken down on every link. */
  leave(sessionId: string): void {
    for (const card of [...this.cards.values()]) if (card.sessionId === sessionId) this.close(card, "the session is no longer shared");
  }

  /** A link came up: every open card is sent on it. Returns how to stop (the link went). */
  link(outlet: Outlet): () => void {
    this.outlets.add(outlet);
    for (const card of this.cards.values()) this.ask(card, outlet);
    return () => {
      this.outlets.delete(outlet);
      for (const card of this.cards.values()) {
        for (const [id, to] of card.asked) {
          if (to !== outlet) continue;
          card.asked.delete(id);
          this.asked.delete(id);
        }
      }
    };
  }

  /**
   * A message from a link: when it answers one of the card requests sent here, it is taken (true),
   * whether or not it still counts; anything else is not (false).
   */
  answered(message: Record<string, unknown>): boolean {
    const id = message.id;
    if (typeof id !== "string" || !id.startsWith(ID_PREFIX) || "method" in message) return false;
    const card = this.asked.get(id);
    if (!card) return true;
    const outlet = card.asked.get(id);
    this.asked.delete(id);
    card.asked.delete(id);
    if (message.error !== undefined) {
      const code = (message.error as { code?: unknown } | null)?.code;
      if (code === -32601 && card.method !== "session/request_permission" && outlet) this.protocol1.add(outlet);
      // That client cannot answer it; the others and the terminal still may.
      return true;
    }
    this.forget(card);
    for (const other of this.outlets) if (other !== outlet) other.send(settledNote(card));
    card.answer(message.result ?? null);
    return true;
  }

  private ask(card: OpenCard, outlet: Outlet): void {
    if (card.method !== "session/request_permission" && ((outlet.protocol ?? 2) < 2 || this.protocol1.has(outlet))) return;
    const id = `${ID_PREFIX}${randomUUID()}`;
    card.asked.set(id, outlet);
    this.asked.set(id, card);
    outlet.send({ jsonrpc: "2.0", id, method: card.method, params: card.params } as AnyMessage);
  }

  private close(card: OpenCard, why: string): void {
    this.forget(card);
    for (const outlet of this.outlets) outlet.send(settledNote(card));
    card.letGo(why);
  }

  private forget(card: OpenCard): void {
    this.cards.delete(card.key);
    for (const id of card.asked.keys()) this.asked.delete(id);
    card.asked.clear();
  }
}

function keyOf(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}

function settledNote(card: OpenCard): AnyMessage {
  return { jsonrpc: "2.0", method: "_lembas/permission/settled", params: { sessionId: card.sessionId, toolCallId: card.toolCallId } } as AnyMessage;
}

/** The session and toolCallId a card's params name, or -32602 with the first problem. */
function cardIds(method: CardMethod, raw: unknown): { sessionId: string; toolCallId: string } {
  if (method === "session/request_permission") {
    const p = read(PermissionParams, raw);
    return { sessionId: p.sessionId, toolCallId: p.toolCall.toolCallId };
  }
  const p = method === "_lembas/question" ? read(QuestionParams, raw) : read(PlanParams, raw);
  return { sessionId: p.sessionId, toolCallId: p.toolCallId };
}

function read<T>(schema: z.ZodType<T>, raw: unknown): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw invalid(`${issue?.path.join(".") || "params"}: ${issue?.message ?? "not valid"}`);
}

/** The params with `_meta.lembas.patient: true`: a person may answer at the terminal, so no client times it out. */
function patient(raw: unknown): unknown {
  const params = raw as Record<string, unknown>;
  const meta = (typeof params._meta === "object" && params._meta !== null ? params._meta : {}) as Record<string, unknown>;
  const lembas = (typeof meta.lembas === "object" && meta.lembas !== null ? meta.lembas : {}) as Record<string, unknown>;
  return { ...params, _meta: { ...meta, lembas: { ...lembas, patient: true } } };
}

function invalid(sentence: string): acp.RequestError {
  return new acp.RequestError(-32602, `Invalid params: ${sentence}`);
}
