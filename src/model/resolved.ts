import type { DialectId } from "./dialects.ts";
import type { ModelWindow } from "./discovery.ts";
import type { Endpoint } from "./endpoint.ts";
import type { RejectedFields } from "./request-fields.ts";

/** A model ready to be called: where requests go and what the engine needs to know of it. */
export type ResolvedModel = {
  ref: string;
  /** The device connection or login requests go to. */
  connection: string;
  endpoint: Endpoint;
  servedId: string;
  /** The context window, when the server or the config says; null: the engine's safe default. */
  contextLength: number | null;
  /** The window with where it came from (config, server, or the default, which says so). */
  window: ModelWindow;
  /** config.yaml's max_output (the client sends it as max_tokens); null: none set. */
  maxOutput: number | null;
  /**
   * false: the model takes no tools (config.yaml's supports_tools, else what the server said), and
   * a turn with it is plain chat; null: not known (tools are offered).
   */
  supportsTools: boolean | null;
  /** config.yaml's reasoning: whether to send reasoning_effort (true), never (false); null: found out. */
  reasoning: boolean | null;
  /** The server's family (src/model/dialects.ts), also on endpoint.dialect. */
  dialect: DialectId;
  vision: boolean;
  /** What the servers refused of the fields sent (request-fields.ts): one memo per registry, shared by its models' calls. */
  rejectedFields: RejectedFields;
};

/** Whether a turn offers the model tools. */
export function offersTools(model: Pick<ResolvedModel, "supportsTools">): boolean {
  return model.supportsTools !== false;
}

/** Where the engine gets its models; the model layer implements it over connections and logins. */
export type ModelSource = {
  /** Resolves a ref (null: the default model); throws a UserError with a sentence when it cannot. */
  resolve(ref: string | null): Promise<ResolvedModel>;
  /** Every ref the device can use, for the settings tool and `lembas models`. */
  refs(): Promise<string[]>;
  /** The device's ref for a model a login's instance names by its served name (the link's lembas_model). */
  refFor(login: string, servedName: string): Promise<string>;
  /**
   * A model resolved earlier in the turn, as its login stands now (a look of microseconds, taken
   * before each step's request): the same model while the login is unchanged, resolved again when
   * its token or URL was renewed; throws a UserError with the logout's sentence when the login was
   * logged out, so no request goes with the removed token.
   */
  current?(model: ResolvedModel): Promise<ResolvedModel>;
  /** Stops what it still asks of servers in the background (the engine stops), after a moment's grace. */
  stop?(): Promise<void>;
};

/** The context window assumed when nothing says otherwise: small enough for most local servers. */
export const DEFAULT_CONTEXT = 32_768;
