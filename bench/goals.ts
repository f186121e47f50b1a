// Every benchmark's goals, in one place: the benches print their limits from here and
// bench/all.ts judges each bench's JSON line against them (bench/README.md's table says the same
// in words). A goal names the figure it reads (a path into the bench's JSON line) and the limit, a
// number or another figure of the same line times a factor.

/** One bench's JSON line. */
export type Figures = Record<string, unknown>;

/**
 * A goal's limit: a number; another figure of the same line, times `times` (1 when not given) and
 * less the figure `minus` (none when not given); or the least of some figures.
 */
type Limit = number | { figure: string; times?: number; minus?: string } | { least: string[] };

export type Goal = {
  /** The figure read: a dotted path into the line (`match_100k.worst_keystroke_ms`). */
  figure: string;
  /** "<=": the figure at most the limit; ">=": at least; "<": below. */
  op: "<=" | ">=" | "<";
  limit: Limit;
};

/** What one goal came to: the figure, the limit it was held to, and whether it was met (false when either is missing). */
export type Judged = { figure: number | null; limit: number | null; met: boolean };

const atMost = (figure: string, limit: Limit): Goal => ({ figure, op: "<=", limit });
const atLeast = (figure: string, limit: Limit): Goal => ({ figure, op: ">=", limit });
const below = (figure: string, limit: Limit): Goal => ({ figure, op: "<", limit });

/** The limits the benches print beside their figures. */
export const LIMITS = {
  startup: { ratio: 1.3 },
  engine: { ratio: 0.8, reads_ratio: 0.6, hook_pair_vs_sandboxed_sh: 1.5, sandbox_start_ratio: 2.5, first_request_tokens: 3000 },
  acpStdio: { initialize_ratio: 1.3, first_chunk_ratio: 2, service_first_chunk_ratio: 1.5, load_last_update_ms: 100 },
  firstRequest: { ratio: 5, oneshot_rss_mb: 50, serve_idle_mb: 60, terminal_idle_mb: 60 },
  share: { ratio: 0.8 },
  link: { ratio: 0.7 },
  terminal: { ratio: 0.85 },
  files: { worst_keystroke_ms: 16, cold_vs_rg: 1.5 },
  undo: { ratio: 1.2 },
  library: { vector_vs_floor: 1.5, hybrid_vs_floor: 2 },
  codeIndex: { refresh_10_files_ms: 1000, search_vs_library: 1.2 },
  tui: { ratio: 1.5, bytes_per_chunk_growth: 1.1 },
  paste: { ratio: 0.1 },
} as const;

const undoGoals = (where: "git" | "noGit"): Record<string, Goal> => ({
  [`${where}_ratio`]: atMost(`${where}.ratio`, LIMITS.undo.ratio),
  [`${where}_noop_growth`]: atMost(`${where}.stateGrowthNoopBytes`, 0),
  [`${where}_change_growth`]: atMost(`${where}.stateGrowthChangeBytes`, { figure: `${where}.writtenBytes` }),
});


const tui = LIMITS.tui.ratio;

/** Each bench's goals by name, as bench/README.md's table states them (pty.ts has none: it is a floor). */
export const GOALS: Record<string, Record<string, Goal>> = {
  startup: { ratio: atMost("ratio", LIMITS.startup.ratio) },
  engine: {
    ratio: atLeast("ratio", LIMITS.engine.ratio),
    heavy_ratio: atLeast("heavy_ratio", LIMITS.engine.ratio),
    cpu_ratio: atLeast("cpu_ratio", LIMITS.engine.ratio),
    heavy_cpu_ratio: atLeast("heavy_cpu_ratio", LIMITS.engine.ratio),
    messages_ratio: atLeast("messages_ratio", LIMITS.engine.ratio),
    messages_cpu_ratio: atLeast("messages_cpu_ratio", LIMITS.engine.ratio),
    responses_ratio: atLeast("responses_ratio", LIMITS.engine.ratio),
    responses_cpu_ratio: atLeast("responses_cpu_ratio", LIMITS.engine.ratio),
    reads_ratio: atMost("reads_ratio", LIMITS.engine.reads_ratio),
    hook_pair: atMost("hook_pair_extra_ms", { figure: "sandboxed_sh_true_twice_ms", times: LIMITS.engine.hook_pair_vs_sandboxed_sh }),
    sandbox_start_ratio: atMost("sandbox_start_ratio", LIMITS.engine.sandbox_start_ratio),
    // The engine's own estimate, which runs above o200k: held where no tokenizer is installed.
    first_request_tokens: atMost("first_request_tokens_estimated", LIMITS.engine.first_request_tokens),
  },
  "acp-stdio": {
    initialize_ratio: atMost("initialize_ratio", LIMITS.acpStdio.initialize_ratio),
    first_chunk_ratio: atMost("first_chunk_ratio", LIMITS.acpStdio.first_chunk_ratio),
    service_first_chunk_ratio: atMost("service_first_chunk_ratio", LIMITS.acpStdio.service_first_chunk_ratio),
    load_last_update_ms: below("load_last_update_ms", LIMITS.acpStdio.load_last_update_ms),
    // From 2,000 turns to 6,000 (bench/README.md: below 2,000 the collector's allowance still grows, once).
    load_rss_growth: atMost("load_rss_growth_mb", { figure: "longest_load_text_mb", minus: "long_load_text_mb" }),
  },
  "first-request": {
    first_request_ratio: atMost("first_request_ratio", LIMITS.firstRequest.ratio),
    oneshot_peak_rss: atMost("oneshot_peak_rss_mb", LIMITS.firstRequest.oneshot_rss_mb),
    serve_idle_rss: atMost("serve_idle_rss_mb", LIMITS.firstRequest.serve_idle_mb),
    terminal_idle_rss: atMost("terminal_idle_rss_mb", LIMITS.firstRequest.terminal_idle_mb),
  },
  share: { ratio: atLeast("ratio", LIMITS.share.ratio) },
  link: { ratio: atLeast("ratio", LIMITS.link.ratio) },
  terminal: { ratio: atLeast("ratio", LIMITS.terminal.ratio) },
  pty: {},
  files: {
    cold_index: atMost("cold_index.ratio", LIMITS.files.cold_vs_rg),
    worst_keystroke_100k: atMost("match_100k.worst_keystroke_ms", LIMITS.files.worst_keystroke_ms),
    worst_keystroke_1m: atMost("match_1m.worst_keystroke_ms", LIMITS.files.worst_keystroke_ms),
    sum_of_medians: atMost("match_100k.sum_of_medians_ms", { least: ["match_100k.fuzzysort_sum_of_medians_ms", "match_100k.fuzzysort_any_match_sum_of_medians_ms"] }),
  },
  undo: { ...undoGoals("git"), ...undoGoals("noGit") },
  // Held to the worst of the sizes measured (10,000 and 100,000 chunks; 10,000 alone with --quick).
  library: { vector: atMost("vector_vs_floor", LIMITS.library.vector_vs_floor), hybrid: atMost("hybrid_vs_floor", LIMITS.library.hybrid_vs_floor) },
  "code-index": {
    refresh: below("refresh_10_files_ms", LIMITS.codeIndex.refresh_10_files_ms),
    search: atMost("search_vs_library", LIMITS.codeIndex.search_vs_library),
  },
  tui: {
    first_frame: atMost("ratios.firstFrame", tui),
    first_frame_5k: atMost("ratios.firstFrame5k", tui),
    key: atMost("ratios.key", tui),
    key_5k: atMost("ratios.key5k", tui),
    stream_cpu: atMost("ratios.streamCpu", tui),
    stream_cpu_5k: atMost("ratios.streamCpu5k", tui),
    bytes_per_chunk_growth: atMost("bytesPerChunkGrowth.lembas", LIMITS.tui.bytes_per_chunk_growth),
  },
  paste: { ratio_10mb: atLeast("10mb.ratio", LIMITS.paste.ratio) },
};

/** The number at a dotted path of `figures`; null when there is none. */
export function figureAt(figures: Figures, path: string): number | null {
  let at: unknown = figures;
  for (const key of path.split(".")) {
    if (typeof at !== "object" || at === null) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === "number" && Number.isFinite(at) ? at : null;
}

function limitOf(figures: Figures, limit: Limit): number | null {
  if (typeof limit === "number") return limit;
  if ("least" in limit) {
    const found = limit.least.map((path) => figureAt(figures, path)).filter((n) => n !== null);
    return found.length === 0 ? null : Math.min(...found);
  }
  const other = figureAt(figures, limit.figure);
  const less = limit.minus === undefined ? 0 : figureAt(figures, limit.minus);
  return other === null || less === null ? null : Math.round((other * (limit.times ?? 1) - less) * 1e4) / 1e4;
}

/** One goal held against a bench's line. */
export function judge(figures: Figures, goal: Goal): Judged {
  const figure = figureAt(figures, goal.figure);
  const limit = limitOf(figures, goal.limit);
  if (figure === null || limit === null) return { figure, limit, met: false };
  const met = goal.op === "<=" ? figure <= limit : goal.op === ">=" ? figure >= limit : figure < limit;
  return { figure, limit, met };
}

/** Every goal of `bench` held against its line (a bench whose line is missing meets none). */
export function judgeBench(bench: string, figures: Figures | null): Record<string, Judged> {
  const out: Record<string, Judged> = {};
  for (const [name, goal] of Object.entries(GOALS[bench] ?? {})) {
    out[name] = figures === null ? { figure: null, limit: null, met: false } : judge(figures, goal);
  }
  return out;
}
