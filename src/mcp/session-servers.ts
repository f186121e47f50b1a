import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import type { Login } from "../store/logins.ts";
import type { Vars } from "./expand.ts";
import { configServers } from "./from-config.ts";
import { instanceServers } from "./from-instance.ts";
import type { BackgroundProbes } from "./instance-probes.ts";
import { approveProjectServers, projectServers } from "./from-project.ts";
import { mergeServers } from "./servers.ts";
import type { McpServerSpec } from "./spec.ts";
import type { GatheredServers } from "./wiring-types.ts";

/**
 * One session's servers: the editor's, config.yaml's, the trusted project's approved .mcp.json and
 * the logins' instances (those the store says serve /mcp), one a name (servers.ts's order); a file that waits for approval is
 * `pending`; approving it (kept, or for the session only) gives its servers but those whose names are taken.
 */
export async function sessionServers(input: {
  db: Db;
  config: Pick<Config, "mcp">;
  vars: Vars;
  logins: readonly Login[];
  root: string;
  editor: readonly McpServerSpec[];
  /** Where an instance's /mcp is asked when the store does not say (src/mcp/instance-probes.ts): never waited for. */
  probes: BackgroundProbes;
}): Promise<GatheredServers> {
  const { db, vars, root } = input;
  const fromConfig = configServers(input.config, vars);
  const project = projectServers(root, db, vars);
  const fromInstance = await instanceServers(db, input.logins, { background: input.probes });
  const merged = mergeServers([...input.editor, ...project.specs, ...fromConfig.specs, ...fromInstance.specs]);
  const problems = [
    ...[...fromConfig.problems, ...project.problems, ...fromInstance.problems].map((p) => `MCP server ${p.name}: ${p.problem}`),
    ...merged.shadowed.map(({ spec, by }) => `MCP server ${spec.name} (${spec.source}) is not used: the ${by} server of that name is`),
  ];
  const needs = project.needsApproval;
  if (!needs) return { specs: merged.specs, problems, pending: null };
  const taken = new Set(merged.specs.map((s) => s.name));
  /** The file's servers once allowed (kept, or for this session only), but those whose names are taken. */
  const allowed = (allowedHash?: string) => {
    const approved = projectServers(root, db, vars, allowedHash);
    const clash = approved.specs.filter((s) => taken.has(s.name));
    return {
      specs: approved.specs.filter((s) => !taken.has(s.name)),
      problems: [
        ...approved.problems.map((p) => `MCP server ${p.name}: ${p.problem}`),
        ...clash.map((s) => `MCP server ${s.name} of ${needs.path} is not used: a server of that name runs already`),
      ],
    };
  };
  return {
    specs: merged.specs,
    problems,
    pending: {
      path: needs.path,
      servers: needs.servers,
      approve() {
        approveProjectServers(db, root, needs.hash);
        return allowed();
      },
      allowForSession: () => allowed(needs.hash),
    },
  };
}
