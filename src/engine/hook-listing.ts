import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { type HookSpec, hookSpecs } from "./hook-set.ts";
import { PROJECT_HOOK_FILES, type ProjectHookFile, projectHooks } from "./project-hooks.ts";

/** Why a project file's hooks do not run, or null when they do. */
function held(file: ProjectHookFile): string | null {
  if (file.state === "untrusted") return "not run: the project is not trusted (lembas trust, then lembas hooks approve)";
  if (file.state === "needs-approval") return "not run: not approved as it reads now (lembas hooks approve)";
  if (file.state === "invalid") return "not run: the file does not read";
  return null;
}

function line(spec: HookSpec, note: string | null): string {
  return `${spec.event} ${spec.matcher === undefined || spec.matcher === "" ? "*" : spec.matcher} → ${spec.command} (${spec.timeoutS} s) · ${spec.source}${note ? ` · ${note}` : ""}`;
}

/**
 * Every hook a session in the project at ROOT, started in CWD, has, a line each, with where it is written and,
 * for a project's, whether it runs; then what could not be read of the project's files.
 */
export function hookLines(config: Pick<Config, "hooks">, db: Db, root: string, cwd: string = root): string[] {
  const own = hookSpecs(config.hooks, "config.yaml").map((spec) => line(spec, null));
  const files = projectHooks(root, db, { cwd });
  const project = files.flatMap((file) => file.specs.map((spec) => line(spec, held(file))));
  const problems = files.flatMap((file) => file.problems);
  if (own.length + project.length === 0 && problems.length === 0) {
    return [`no hooks: config.yaml has no hooks:, and ${root} has none in ${PROJECT_HOOK_FILES.join(" or ")}`];
  }
  return [...own, ...project, ...problems];
}
