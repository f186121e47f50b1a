/** One line of a line diff. */
type Op = { kind: " " | "-" | "+"; line: string };

/** Past this many differences the middle of a diff is shown as removed then added, not aligned. */
const MAX_EDIT_DISTANCE = 2_000;

/**
 * A unified diff of two texts (hunks only, no file headers), at most `maxLines` lines with a note
 * when cut. Line endings are compared without `\r`.
 */
export function unifiedDiff(oldText: string, newText: string, opts: { context?: number; maxLines?: number } = {}): string {
  const context = opts.context ?? 3;
  const maxLines = opts.maxLines ?? 80;
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const lines = hunks(ops, context);
  if (lines.length <= maxLines) return lines.join("\n");
  return `${lines.slice(0, maxLines).join("\n")}\n[… ${lines.length - maxLines} more diff lines …]`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A line diff: common head and tail trimmed, Myers' algorithm on the middle. */
export function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((line): Op => ({ kind: " ", line }));
  const tail = a.slice(endA).map((line): Op => ({ kind: " ", line }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB) ?? [
    ...midA.map((line): Op => ({ kind: "-", line })),
    ...midB.map((line): Op => ({ kind: "+", line })),
  ];
  return [...head, ...middle, ...tail];
}

/** Myers' O((N+M)·D) diff; null when the distance passes MAX_EDIT_DISTANCE. */
function myers(a: string[], b: string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v (diagonals -d-1..d+1) as it was before step d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0));
      let x = down ? (v[off + k + 1] ?? 0) : (v[off + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d] ?? new Int32Array(0);
    const at = (k: number): number => v[k + d + 1] ?? 0;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[x - 1] ?? "" });
      x--;
      y--;
    }
    if (d === 0) break;
    if (x === prevX) ops.push({ kind: "+", line: b[prevY] ?? "" });
    else ops.push({ kind: "-", line: a[prevX] ?? "" });
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** Groups changes with `context` unchanged lines around them into `@@` hunks. */
function hunks(ops: Op[], context: number): string[] {
  // Line numbers (1-based) in the old and new text at which each op starts.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine++;
    if (op.kind !== "-") newLine++;
  }
  const changed = ops.flatMap((op, i) => (op.kind === " " ? [] : [i]));
  const out: string[] = [];
  let i = 0;
  while (i < changed.length) {
    const first = changed[i] ?? 0;
    let last = first;
    let j = i + 1;
    while (j < changed.length && (changed[j] ?? 0) - last <= 2 * context + 1) {
      last = changed[j] ?? 0;
      j++;
    }
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    const body = ops.slice(from, to);
    const oldCount = body.filter((op) => op.kind !== "+").length;
    const newCount = body.filter((op) => op.kind !== "-").length;
    // An empty side names the line before it, as diff(1) does.
    const oldStart = (oldAt[from] ?? 1) - (oldCount ? 0 : 1);
    const newStart = (newAt[from] ?? 1) - (newCount ? 0 : 1);
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body.map((op) => `${op.kind}${op.line}`));
    i = j;
  }
  return out;
}
