import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type EngineEvent, eventSchemas } from "../../src/bus/index.ts";
import { resolvePaths } from "../../src/config/paths.ts";
import { Config } from "../../src/config/schema.ts";
import { LazyCodeIndexes } from "../../src/code-index/engine-code-index.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { mcpWiring } from "../../src/mcp/wiring.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { Interaction, PermissionDecision, PermissionRequest } from "../../src/engine/interaction.ts";
import type { Session } from "../../src/engine/session.ts";
import { ModelRegistry } from "../../src/model/registry.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { type ChatRequest, type ModelEntry, type Reply, type ScriptedModel, startModel } from "./model.ts";
import { type Sandbox, sandbox } from "./run.ts";

/** A request the engine makes for a turn's step (it offers tools); titles and summaries do not. */
export const isStep = (body: ChatRequest) => Array.isArray(body.tools) && body.tools.length > 0;
export const isTitle = (body: ChatRequest) => !isStep(body) && JSON.stringify(body.messages?.[0] ?? "").includes("You name coding sessions");
export const isSummary = (body: ChatRequest) => !isStep(body) && JSON.stringify(body.messages?.[0] ?? "").includes("You summarise a coding session");

/** A request of a task tool's helper (its own system prompt), with tools or, at its last step, without. */
export const isHelper = (body: ChatRequest) => JSON.stringify(body.messages?.[0] ?? "").includes("You are a helper of a coding agent");
/** A reply only a helper's request takes. */
export const helperStep = (reply: Reply): Reply => ({ ...reply, match: isHelper });
/** A reply only the session's own step takes, never its helper's. */
export const ownStep = (reply: Reply): Reply => ({ ...reply, match: (body) => isStep(body) && !isHelper(body) });

/** A reply only a turn's step takes, so titles and summaries never eat it. */
export const step = (reply: Reply): Reply => ({ ...reply, match: isStep });

/**
 * The real engine, in this process, against the real scripted model server and the real tools,
 * in a sandbox: a project directory, a config and a state dir of its own.
 */
export type EngineHarness = {
  box: Sandbox;
  project: string;
  model: ScriptedModel;
  db: Db;
  engine: Engine;
  /**
   * A session at the project's root, or in `cwd` below it. `keepEvents: false` keeps none of its
   * events for {@link events} (a benchmark's session, whose turns stream hundreds of thousands).
   */
  session(opts?: { mode?: "plan" | "manual" | "edit" | "auto"; cwd?: string; keepEvents?: boolean }): Promise<Session>;
  events(session: Session): EngineEvent[];
  close(): Promise<void>;
};

export async function engineHarness(
  opts: { models?: ModelEntry[]; config?: Record<string, unknown>; maxSteps?: number; checkEvents?: boolean; mcp?: boolean; tools?: readonly Tool[]; code?: boolean } = {},
): Promise<EngineHarness> {
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  const model = await startModel({ ...(opts.models ? { models: opts.models } : {}) });
  const paths = resolvePaths(box.env);
  const config = Config.parse({
    model: "test/test-model",
    connections: { test: { base_url: model.url } },
    ...opts.config,
  });
  const db = openDb(paths.dbFile);
  const models = new ModelRegistry(config, [], box.env, []);
  const engine = new Engine({
    db,
    paths,
    config,
    models,
    tools: opts.tools ?? ALL_TOOLS,
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
    // Sessions' MCP servers as the front ends wire them (config.yaml's `mcp:` of opts.config).
    ...(opts.mcp ? { mcp: mcpWiring({ db, config, vars: box.env }) } : {}),
    // The project's code index as the front ends wire it (needs config.yaml's `embedding:`).
    ...(opts.code ? { code: new LazyCodeIndexes(config, db, box.env, () => protectedPaths(config.protected, [paths.configDir, paths.stateDir])) } : {}),
  });
  const logs = new Map<string, EngineEvent[]>();
  // Every event the engine emits must match its schema (the contract clients are built from).
  const broken: string[] = [];
  const check = (e: EngineEvent) => {
    const schema = eventSchemas()[e.type];
    const parsed = schema.safeParse(e);
    if (!parsed.success) broken.push(`${e.type}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
  };
  return {
    box,
    project,
    model,
    db,
    engine,
    async session(o = {}) {
      const s = await engine.create({ cwd: o.cwd ?? project, root: project, mode: o.mode ?? "edit" });
      const log: EngineEvent[] = [];
      logs.set(s.id, log);
      const keep = o.keepEvents !== false;
      s.bus.subscribe((e) => {
        if (opts.checkEvents !== false) check(e);
        if (keep) log.push(e);
      });
      return s;
    },
    events: (s) => logs.get(s.id) ?? [],
    async close() {
      await engine.stop();
      db.close();
      await model.close();
      box.cleanup();
      if (broken.length > 0) throw new Error(`events that do not match their schema: ${broken.slice(0, 5).join(" | ")}`);
    },
  };
}

/** The events of one type, narrowed. */
export function ofType<K extends EngineEvent["type"]>(events: readonly EngineEvent[], type: K): Extract<EngineEvent, { type: K }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: K }> => e.type === type);
}

/** A person who answers each approval from a list (deny when it runs out), and remembers what was asked. */
export function person(answers: PermissionDecision[] = []): Interaction & { asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    permission: async (request) => {
      asked.push(request);
      return answers.shift() ?? { outcome: "deny" };
    },
    question: async () => ({ outcome: "nobody" }),
    plan: async () => ({ outcome: "nobody" }),
  };
}
