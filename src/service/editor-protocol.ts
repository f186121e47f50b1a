/**
 * What an editor's `lembas serve --stdio` and the service say to each other when the stdio process
 * hands its sessions to the service: `GET /v1/acp?ipc=N&version=V&config=PATH` on the control
 * socket, upgraded to a WebSocket that carries the editor's plain ACP one message a frame. Both
 * sides import it; it imports nothing (the stdio process loads it before it knows whether it needs
 * an engine).
 */

/** The WebSocket's path on the control socket. */
export const EDITOR_PATH = "/v1/acp";

/** The service's first frame once it took an editor: who it is (never passed on to the editor). */
export const WELCOME_METHOD = "_lembas/ipc/editor";

/**
 * The stdio process's last frame, when stdin ended or it was told to stop: the service cancels the
 * editor's running turns and answers every request still open, then the stdio process closes.
 */
export const END_METHOD = "_lembas/ipc/editor_end";
export const END_FRAME = JSON.stringify({ jsonrpc: "2.0", method: END_METHOD });

/** The query the stdio process connects with: the service takes it only when all three are its own. */
export function editorQuery(ipc: number, version: string, configFile: string): string {
  return `${EDITOR_PATH}?ipc=${ipc}&version=${encodeURIComponent(version)}&config=${encodeURIComponent(configFile)}`;
}
