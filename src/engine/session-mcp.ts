import type { Mode } from "../config/schema.ts";
import { PROJECT_MCP_FILE } from "../mcp/from-project.ts";
import type { McpServerSpec } from "../mcp/spec.ts";
import type { GatheredServers, McpWiring, PendingApproval, SessionHub, SessionHubOptions } from "../mcp/wiring-types.ts";
import type { Tool } from "../tools/tool.ts";
import { untilAborted } from "../until-aborted.ts";
import type { Interaction } from "./interaction.ts";

/** The approval question's tool name, as cards and the terminal show it. */
export const APPROVAL_TOOL = "mcp_servers";

/** A project's servers not started yet, and its .mcp.json not asked about yet: plan mode runs no commands. */
type Held = { specs: McpServerSpec[]; pending: PendingApproval | null };

/**
 * One session's MCP servers: started as the session is made (in parallel, each with the hub's
 * time limit), without holding up its answer; their tools fixed at the session's first step (the
 * tool list stays the same all session), after a project's .mcp.json was asked about; stopped
 * with the session. A server that does not start is a notice, and the session goes on.
 *
 * A project's servers are the repository's commands: in plan mode (the session's, or a turn's
 * under remote.max_mode) they are neither started nor asked about, which a notice says; the first
 * turn in a higher mode starts them, or asks, and the tool list is made again with them.
 */
export class SessionMcp {
  private hub: Promise<SessionHub> | null = null;
  private readonly started: Promise<Held>;
  private fixed: Promise<Tool[]> | null = null;
  /** The list was fixed by a turn in plan mode with the project's servers held back. */
  private fixedInPlan = false;
  private toldHeld = false;
  private stopped: Promise<void> | null = null;
  private readonly abort = new AbortController();

  constructor(
    gathering: Promise<GatheredServers>,
    private readonly deps: {
      sessionId: string;
      wiring: McpWiring;
      hubOptions: SessionHubOptions;
      /** The session's mode as it is made: in plan mode a project's servers wait. */
      mode(): Mode;
    },
  ) {
    this.started = this.begin(gathering);
    // Said where it is awaited (tools, stop); unheard until then, it must not count as unhandled.
    this.started.catch(() => {});
  }

  /**
   * The session's MCP tools, after the built-ins: fixed the first time they are asked for. A
   * project's file waiting for approval is asked about then, of whoever answers for the person.
   * A turn cancelled while they start gets none at once; one cancelled while the question is open
   * leaves the list unfixed, and the next turn asks again. `mode`: the turn's.
   */
  tools(interaction: Interaction, signal: AbortSignal, mode: Mode): Promise<Tool[]> {
    if (mode !== "plan" && this.fixedInPlan) {
      this.fixedInPlan = false;
      this.fixed = null;
    }
    this.fixed ??= this.fix(interaction, signal, mode);
    // A cancel does not wait for servers still starting (up to mcp_timeouts.start); the list is still fixed for the turns to come.
    return untilAborted(this.fixed, signal, () => []);
  }

  /** Stops every server (once); resolves when they are gone. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.abort.abort();
      await this.started.catch(() => null);
      await (await this.hub)?.stop();
    })();
    return this.stopped;
  }

  private notice(message: string): void {
    this.deps.hubOptions.onNotice(message);
  }

  private async begin(gathering: Promise<GatheredServers>): Promise<Held> {
    let gathered: GatheredServers;
    try {
      gathered = await gathering;
    } catch (error) {
      this.notice(`the session's MCP servers could not be read: ${error instanceof Error ? error.message : String(error)}`);
      return { specs: [], pending: null };
    }
    for (const problem of gathered.problems) this.notice(problem);
    const planning = this.deps.mode() === "plan";
    const project = planning ? gathered.specs.filter((s) => s.source === "project") : [];
    await this.startSpecs(gathered.specs.filter((s) => !project.includes(s)));
    return { specs: project, pending: gathered.pending };
  }

  private async startSpecs(specs: readonly McpServerSpec[]): Promise<void> {
    if (specs.length === 0 || this.abort.signal.aborted) return;
    this.hub ??= this.deps.wiring.hub(this.deps.hubOptions);
    const problems = await (await this.hub).start(specs, this.abort.signal);
    for (const problem of problems) this.notice(problem.message);
  }

  private async fix(interaction: Interaction, signal: AbortSignal, mode: Mode): Promise<Tool[]> {
    const held = await this.started;
    if (this.abort.signal.aborted || (held.specs.length === 0 && !held.pending)) return (await this.hub)?.tools() ?? [];
    if (mode === "plan") {
      this.fixedInPlan = true;
      this.tellHeld(held);
      return (await this.hub)?.tools() ?? [];
    }
    await this.startSpecs(held.specs.splice(0));
    if (held.pending && !(await this.askApproval(held.pending, interaction, signal))) {
      // A question cancelled with its turn is no answer: the next turn asks again.
      this.fixed = null;
      return [];
    }
    held.pending = null;
    return (await this.hub)?.tools() ?? [];
  }

  /** Says once why a project's servers wait: plan mode runs no commands. */
  private tellHeld(held: Held): void {
    if (this.toldHeld) return;
    this.toldHeld = true;
    const file = held.pending?.path ?? `the project's ${PROJECT_MCP_FILE}`;
    const then = held.pending ? "lembas asks about them" : "they start";
    this.notice(`the MCP servers of ${file} are not started in plan mode, which runs no commands: ${then} when the mode is raised`);
  }

  /** False when the turn was cancelled before the person answered. */
  private async askApproval(pending: PendingApproval, interaction: Interaction, signal: AbortSignal): Promise<boolean> {
    const answer = await interaction
      .permission(
        {
          sessionId: this.deps.sessionId,
          callId: `mcp-approval-${this.deps.sessionId}`,
          toolName: APPROVAL_TOOL,
          title: `Use the MCP servers of ${pending.path}?`,
          kind: "other",
          rawInput: { path: pending.path, servers: pending.servers },
          description: approvalText(pending),
          reason: "the project's .mcp.json names MCP servers: their commands run on this device and their tools are offered to the model. Allow keeps your yes for the file as it reads now; Deny: not now, asked again at the next session",
          always: null,
        },
        signal,
      )
      .catch(() => ({ outcome: "deny" as const }));
    if (signal.aborted) return false;
    if (answer.outcome === "deny") {
      this.notice(`the MCP servers of ${pending.path} are not approved, and not used in this session: approve them when lembas asks (lembas in a terminal there), or with lembas mcp approve in the project`);
      return true;
    }
    // A yes nobody gave in person (run --yes) lets the servers run now and keeps nothing.
    const approved = answer.unattended ? pending.allowForSession() : pending.approve();
    if (answer.unattended) this.notice(`the MCP servers of ${pending.path} run for this session only, as --yes allowed them: approve them for good with lembas mcp approve in the project`);
    for (const problem of approved.problems) this.notice(problem);
    await this.startSpecs(approved.specs);
    return true;
  }
}

/** The question's text: each server as written, the names of what it sets and reads (never values). */
export function approvalText(pending: Pick<PendingApproval, "path" | "servers">): string {
  const lines = [`${pending.path} names ${pending.servers.length === 1 ? "this MCP server" : `these ${pending.servers.length} MCP servers`}:`];
  for (const server of pending.servers) {
    lines.push(`${server.name}: ${server.what}`);
    if (server.env.length > 0) lines.push(`  sets ${server.env.join(", ")}`);
    if (server.headers.length > 0) lines.push(`  sends the headers ${server.headers.join(", ")}`);
    if (server.reads.length > 0) lines.push(`  reads \${${server.reads.join("}, ${")}} from your environment`);
  }
  return lines.join("\n");
}
