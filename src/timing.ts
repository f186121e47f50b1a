/**
 * Waits the test suite shortens, so that it does not sit out the product's real bounds. Each is read
 * from its LEMBAS_TEST_* variable here and nowhere else; unset (as for everyone but the tests), the
 * product's own default stands.
 */
const WAITS = {
  /** How long doctor's probe waits for a chat answer (15 s). */
  MODEL_PROBE_MS: "LEMBAS_TEST_MODEL_PROBE_MS",
  /** How long the first run's connection form waits for a server's model list (10 s). */
  CONNECTION_CHECK_MS: "LEMBAS_TEST_CONNECTION_CHECK_MS",
  /** How long the service waits for the login shell's environment (5 s). */
  LOGIN_SHELL_MS: "LEMBAS_TEST_LOGIN_SHELL_MS",
  /** How often the service looks for logins added or removed (5 s). */
  LOGINS_EVERY_MS: "LEMBAS_TEST_LOGINS_EVERY_MS",
  /** How often a link sends the deletes it keeps (3 s). */
  KEPT_DELETES_EVERY_MS: "LEMBAS_TEST_KEPT_DELETES_EVERY_MS",
  /** The first wait before a model request is sent again, which each further one doubles (1 s). */
  RETRY_BASE_MS: "LEMBAS_TEST_RETRY_BASE_MS",
  /** How long an editor may take to answer fs/read_text_file or fs/write_text_file (5 s). */
  EDITOR_FILES_MS: "LEMBAS_TEST_EDITOR_FILES_MS",
  /** How long a connection's model list (/v1/models and what else tells it) may take (5 s). */
  LISTING_MS: "LEMBAS_TEST_LISTING_MS",
  /** How long a background probe of an instance's /mcp may take (15 s). */
  BACKGROUND_PROBE_MS: "LEMBAS_TEST_BACKGROUND_PROBE_MS",
  /** How long the service holds a web request for a session moving to a terminal (10 s). */
  MOVE_WAIT_MS: "LEMBAS_TEST_MOVE_WAIT_MS",
  /** After how long unused a language server is stopped (5 min). */
  LSP_IDLE_MS: "LEMBAS_TEST_LSP_IDLE_MS",
  /** How long an edit waits for its file's diagnostics from a language server (3 s; a server just started gets 3 times that). */
  LSP_WAIT_MS: "LEMBAS_TEST_LSP_WAIT_MS",
  /** How long a language server has to start and answer initialize (15 s). */
  LSP_START_MS: "LEMBAS_TEST_LSP_START_MS",
  /** How long SessionEnd hooks may run as their session closes (1.5 s, src/engine/session-end.ts). */
  SESSION_END_MS: "LEMBAS_TEST_SESSION_END_MS",
  /** How long a command that does not say when it is up runs under the start's JIT thresholds (1.5 s, src/jit-policy.ts). */
  STARTED_UP_MS: "LEMBAS_TEST_STARTED_UP_MS",
  /** How long a session a link holds may sit idle before the service lets go of it (10 min, src/service/idle-sweep.ts). */
  SESSION_IDLE_MS: "LEMBAS_TEST_SESSION_IDLE_MS",
  /** How often the service looks for idle sessions to let go of (1 min). */
  IDLE_SWEEP_MS: "LEMBAS_TEST_IDLE_SWEEP_MS",
  /** The link's first redial delay, doubling to its cap (0.5 s). */
  REDIAL_BASE_MS: "LEMBAS_TEST_REDIAL_BASE_MS",
} as const;

export type Wait = keyof typeof WAITS;

/** The wait's test override in ms when one is set to a positive integer, else `defaultMs`. */
export function waitMs(wait: Wait, defaultMs: number, env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[WAITS[wait]]);
  return Number.isInteger(n) && n > 0 ? n : defaultMs;
}
