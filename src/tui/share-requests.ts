/**
 * The service's requests on their way to the terminal's ACP handlers (tui/share.ts). Each carries
 * the login of the link it came from (app/share-login.ts), used here where the service uses
 * its link's own: `_lembas/configure`'s model is that instance's served name, made the device's ref
 * for that login's model (as acp/host.ts's instanceRef does on the link), never taken as a ref of
 * the device's own — with two instances serving one provider, the other one's would be chosen. The
 * web's turn ids are noted on the way in, for the transcript to mark its prompts.
 */
import { errorMessage } from "../errors.ts";
import type { AnyMessage, Stream } from "../rpc/stream.ts";
import { loginOf } from "../app/share-login.ts";

export type ServiceRequestsDeps = {
  /** The device's ref for a model a login's instance names by its served name. */
  refFor(login: string, servedName: string): Promise<string>;
  /** A `session/prompt`'s turn id, sent from the web. */
  webTurn(turnId: string): void;
};

type Message = { id?: unknown; method?: unknown; params?: unknown };

/** The IPC stream as the terminal's handlers are served on it. */
export function fromService(stream: Stream, deps: ServiceRequestsDeps): Stream {
  const writer = stream.writable.getWriter();
  const refuse = (id: unknown, sentence: string) =>
    void writer.write({ jsonrpc: "2.0", id, error: { code: -32602, message: `Invalid params: ${sentence}` } } as AnyMessage).catch(() => {});
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      async transform(message, controller) {
        const m = message as Message;
        if (m.method === "session/prompt") noteTurn(m.params, deps);
        if (m.method !== "_lembas/configure" || m.id === undefined) return controller.enqueue(message);
        const params = m.params as { model?: unknown } | undefined;
        if (typeof params?.model !== "string" || params.model === "") return controller.enqueue(message);
        const login = loginOf(params);
        if (!login) return refuse(m.id, "the service did not say which instance asks for the model: restart it (lembas service install, or stop and start lembas serve)");
        let ref: string;
        try {
          ref = await deps.refFor(login, params.model);
        } catch (error) {
          // A throw here would end the stream, and with it the share.
          return refuse(m.id, `the models of ${login} cannot be read now: ${errorMessage(error)}`);
        }
        controller.enqueue({ ...m, params: { ...params, model: ref } } as AnyMessage);
      },
    }),
  );
  const writable = new WritableStream<AnyMessage>({
    write: (message) => writer.write(message),
    close: () => writer.close(),
  });
  return { readable, writable };
}

function noteTurn(params: unknown, deps: ServiceRequestsDeps): void {
  const turnId = (params as { _meta?: { lembas?: { turnId?: unknown } } } | undefined)?._meta?.lembas?.turnId;
  if (typeof turnId === "string") deps.webTurn(turnId);
}
