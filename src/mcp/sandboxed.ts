import { type Found, findSandbox, planFor, sayOnce } from "../tools/sandbox.ts";

/** Turns a stdio server's argv into the one spawned (the sandbox around it), for its cwd. */
export type ArgvWrap = (argv: string[], cwd: string) => string[];

/**
 * How the stdio MCP servers of a project at `root` start: in the tools' sandbox (the dirs in
 * `hidden`, lembas's config and state, out of their reach), as bash's commands run. Where no
 * sandbox can start they run as they are, and bash's once-said notice is given at the first start.
 * The sandbox is looked for at the first start, not before (`tool`: the one found, else this machine's).
 */
export function sandboxedServers(input: { hidden: readonly string[]; root: string; env: Record<string, string>; notice(message: string): void; tool?: Found }): ArgvWrap {
  let plan: ReturnType<typeof planFor> | undefined;
  return (argv, cwd) => {
    plan ??= planFor(input.hidden, input.root, input.tool ?? findSandbox(), input.env);
    if (plan.kind !== "none") return plan.argv(argv, cwd);
    const unsandboxed = plan.fallback ? sayOnce(plan.why) : null;
    if (unsandboxed) input.notice(unsandboxed);
    return argv;
  };
}
