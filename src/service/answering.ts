/**
 * A terminal that stops answering (SIGSTOP, a hung process) keeps its socket open, so a request
 * forwarded to it would wait for ever. While one waits, the terminal is asked something small
 * every few seconds; when it has said nothing for the bound (30 s, LEMBAS_TERMINAL_ANSWER_MS), the
 * request fails with -32602 "the terminal is not answering". A turn that simply runs long is not
 * cut: a running terminal answers the probe whatever its turn does.
 */
import { acp } from "../rpc/agent.ts";

/** The probe's method: the terminal serves no such method, and its "method not found" is an answer too. */
export const PROBE_METHOD = "_lembas/ipc/ping";

const DEFAULT_BOUND_MS = 30_000;

/** How long a terminal may say nothing while a request waits on it: LEMBAS_TERMINAL_ANSWER_MS, else 30 s. */
export function answerBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.LEMBAS_TERMINAL_ANSWER_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_BOUND_MS;
}

export function notAnswering(boundMs: number): acp.RequestError {
  return new acp.RequestError(-32602, `Invalid params: the terminal is not answering (it shares this session, and said nothing for ${Math.round(boundMs / 1000)} s): try again once it runs`);
}

/** The request's answer, or notAnswering() once the terminal has not answered a probe for `boundMs`. */
export function whileAnswering<T>(work: Promise<T>, probe: () => Promise<unknown>, boundMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let heard = Date.now();
    let probing = false;
    const tick = () => {
      if (Date.now() - heard > boundMs) {
        clearInterval(timer);
        reject(notAnswering(boundMs));
        return;
      }
      // One probe at a time: a stopped terminal does not collect a pile of them.
      if (probing) return;
      probing = true;
      const answered = () => {
        probing = false;
        heard = Date.now();
      };
      probe().then(answered, answered);
    };
    const timer = setInterval(tick, Math.max(20, Math.min(5000, Math.floor(boundMs / 4))));
    work.then(
      (value) => {
        clearInterval(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearInterval(timer);
        reject(error);
      },
    );
  });
}
