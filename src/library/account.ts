import type { McpConnection } from "../mcp/connection.ts";
import type { Login } from "../store/logins.ts";
import { connectInstance } from "./account-check.ts";
import { isLibraryToolName, libraryArguments, libraryTool, passagesOf } from "./account-contract.ts";
import { sanitizeName, toolSafeName } from "../mcp/names.ts";
import { untilAborted } from "../until-aborted.ts";
import type { LibraryBackend, Passage } from "../tools/library-backend.ts";

export type AccountLibraryOptions = {
  /** How long the instance's /mcp has to answer its tool list (default 10 s; config.yaml's mcp_timeouts.start). */
  startMs?: number;
  /** How long one search may take (default 60 s; mcp_timeouts.call). */
  callMs?: number;
};

/**
 * The account's library: the login's instance's /mcp library tool (account-contract.ts), over
 * streamable HTTP with the device token (a secret header, never logged). The connection is made at
 * the first search and kept for the next ones; one that failed is made again at the next search;
 * stop() lets it go. Every fault is an Error whose message is the sentence the tool answers with.
 */
export class AccountLibrary implements LibraryBackend {
  readonly kind = "lembas";
  private connection: Promise<McpConnection> | null = null;
  /** Aborted by stop: a connection under way gives up. */
  private life = new AbortController();

  constructor(
    readonly login: Pick<Login, "name" | "url" | "token">,
    private readonly options: AccountLibraryOptions = {},
  ) {}

  /** Decided when it was made (the store's copy said the token has the library): never the network. */
  available(): boolean {
    return true;
  }

  /** The instance's library tools as the session offers its /mcp's (`mcp__<login>__library_search`): `library` stands for them. */
  covers(tool: string): boolean {
    const prefix = `mcp__${sanitizeName(toolSafeName(this.login.name))}__`;
    return tool.startsWith(prefix) && isLibraryToolName(tool.slice(prefix.length));
  }

  get where(): string {
    return `${this.login.name} (${this.login.url})`;
  }

  async search(query: string, limit: number, signal: AbortSignal): Promise<Passage[]> {
    // Shared by the searches that come in together: its own start limit and stop(), not one search's signal.
    this.connection ??= connectInstance(this.login, { startMs: this.options.startMs ?? 10_000, callMs: this.options.callMs ?? 60_000 }, this.life.signal);
    const pending = this.connection;
    const connection = await untilAborted(this.reached(pending), signal, () => {
      throw new Error("the search was cancelled");
    });
    const call = libraryTool(connection.tools);
    if (!call) throw new Error(`the instance ${this.where} lists no library tool on its /mcp`);
    const result = await connection.call(call.name, libraryArguments(call, query, limit), { signal, vision: false });
    if (connection.state === "down" && this.connection === pending) {
      // Down for good: the next search connects again.
      this.connection = null;
      void connection.stop();
    }
    if (result.isError) throw new Error(`the account's library on ${this.where} failed: ${result.output}`);
    return passagesOf({ text: result.output, structured: result.meta?.structuredContent }, this.login.name).slice(0, limit);
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.life.abort();
    this.life = new AbortController();
    await connection?.then((c) => c.stop(), () => undefined);
  }

  private async reached(pending: Promise<McpConnection>): Promise<McpConnection> {
    try {
      return await pending;
    } catch (error) {
      if (this.connection === pending) this.connection = null;
      throw new Error(`the account's library on ${this.where} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
