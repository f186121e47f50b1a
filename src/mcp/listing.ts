import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import type { Login } from "../store/logins.ts";
import { describeTransport, type McpProblem } from "./entry.ts";
import type { Vars } from "./expand.ts";
import { configServers } from "./from-config.ts";
import { type InstanceServerOptions, instanceServers } from "./from-instance.ts";
import { projectServers, type ProjectServers } from "./from-project.ts";
import { mergeServers } from "./servers.ts";
import type { McpServerSpec, McpSource } from "./spec.ts";

/** One configured server as `lembas mcp list` and `lembas doctor` show it. */
export type ListedServer = {
  name: string;
  source: McpSource;
  /** Its command line or url. */
  what: string;
  /** usable: a session gets `spec`; shadowed: another source's server has its name; needs-approval: the project's file is not approved as it reads. */
  state: "usable" | "shadowed" | "needs-approval";
  spec: McpServerSpec | null;
  /** Why it is not usable, or of a project's server that it is approved. */
  note: string | null;
};

export type McpListing = { servers: ListedServer[]; project: ProjectServers; problems: McpProblem[] };

/**
 * Every server a session started at `root` would have, but the editor's (which come with each
 * session/new): config.yaml's, the project's .mcp.json (its approval state), the logins' instances.
 */
export async function listServers(input: { config: Pick<Config, "mcp">; db: Db; root: string; logins: readonly Login[]; vars: Vars; instance?: InstanceServerOptions }): Promise<McpListing> {
  const fromConfig = configServers(input.config, input.vars);
  const project = projectServers(input.root, input.db, input.vars);
  const fromInstance = await instanceServers(input.db, input.logins, input.instance);
  const merged = mergeServers([...project.specs, ...fromConfig.specs, ...fromInstance.specs]);
  const servers: ListedServer[] = [
    ...merged.specs.map((spec): ListedServer => ({ ...listed(spec), state: "usable", note: spec.source === "project" ? "approved" : null })),
    ...merged.shadowed.map(({ spec, by }): ListedServer => ({ ...listed(spec), state: "shadowed", spec: null, note: `not used: the ${by} server of that name is` })),
    ...(project.needsApproval?.servers ?? []).map((s): ListedServer => ({ name: s.name, source: "project", what: s.what, state: "needs-approval", spec: null, note: `waits for approval of ${project.needsApproval?.path}` })),
  ];
  return { servers, project, problems: [...fromConfig.problems, ...project.problems, ...fromInstance.problems] };
}

function listed(spec: McpServerSpec): Pick<ListedServer, "name" | "source" | "what" | "spec"> {
  return { name: spec.name, source: spec.source, what: describeTransport(spec.transport), spec };
}
