import type { AnyMessage } from "../rpc/stream.ts";

/** One link's way out, as the router gives it: raw messages, in order with the routed answers. */
export type Outlet = {
  /** The login's name (the link's connection): the model event's `instance` is said against it. */
  login: string;
  /** The link protocol its client said in initialize (absent: 2): questions and plans need 2. */
  protocol?: number;
  send(message: AnyMessage): void;
};
