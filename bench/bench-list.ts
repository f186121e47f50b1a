// The benches bench/all.ts runs, with their arguments; bench/goals.ts holds the same names
// (test/docs/bench-goals.test.ts keeps the two and bench/README.md's table naming the same benches).
export type Bench = { name: string; args: string[]; quick?: string[] };

/** In the order they run: quick ones first, so a broken build shows at once. */
export const BENCHES: Bench[] = [
  { name: "startup", args: [] },
  { name: "engine", args: [] },
  { name: "link", args: [] },
  { name: "acp-stdio", args: [] },
  { name: "first-request", args: [], quick: ["--runs", "5"] },
  { name: "undo", args: [] },
  { name: "pty", args: [], quick: ["--quick"] },
  { name: "terminal", args: [], quick: ["--quick"] },
  { name: "share", args: [] },
  { name: "files", args: [] },
  { name: "library", args: [], quick: ["--quick"] },
  { name: "code-index", args: [], quick: ["--files", "5000"] },
  { name: "tui", args: [], quick: ["--rounds", "1"] },
  { name: "paste", args: [], quick: ["--rounds", "1"] },
];
