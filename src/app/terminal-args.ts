import type { Effort, Mode } from "../config/schema.ts";

/** `lembas [PROMPT]`'s own options, as a person types them (cli/tui.ts reads them, tui/main.ts opens with them). */
export type TerminalArgs = {
  prompt: string | null;
  continue: boolean;
  /** -r with an id, or -r alone (true: a picker). */
  resume: string | true | null;
  /** --fork with -r ID: a new session from that one's conversation, the original left as it was. */
  fork: boolean;
  model?: string;
  mode?: Mode;
  effort?: Effort;
  /** --share: the session is shared with the web by name (even outside remote.roots), once a service runs. */
  share: boolean;
};
