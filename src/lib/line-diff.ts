// A line diff (Myers' O((N+M)·D) shortest edit script) for comparing two versions of a policy's terms.
// Written here rather than taken from npm `diff`: the console needs lines only, and a bound on the work
// (a version's text is up to 100,000 characters, so up to 100,000 lines): past `maxWork` steps the
// changed middle is shown as all removed then all added, which is still true, just not minimal.

export type DiffLine = { kind: "same" | "added" | "removed"; text: string };

/** Steps of the search before it gives up on a minimal script. */
const MAX_WORK = 2_000_000;

export function diffLines(before: string[], after: string[], maxWork = MAX_WORK): DiffLine[] {
  // The common start and end cost nothing: only the middle is searched.
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endA = before.length;
  let endB = after.length;
  while (endA > start && endB > start && before[endA - 1] === after[endB - 1]) {
    endA--;
    endB--;
  }
  const a = before.slice(start, endA);
  const b = after.slice(start, endB);
  const same = (lines: string[]) => lines.map((text): DiffLine => ({ kind: "same", text }));
  return [...same(before.slice(0, start)), ...middle(a, b, maxWork), ...same(before.slice(endA))];
}

function middle(a: string[], b: string[], maxWork: number): DiffLine[] {
  const replaced = [...a.map((text): DiffLine => ({ kind: "removed", text })), ...b.map((text): DiffLine => ({ kind: "added", text }))];
  if (a.length === 0 || b.length === 0) return replaced;
  const [n, m] = [a.length, b.length];
  const offset = n + m + 1;
  // v[k + offset]: the furthest x reached on diagonal k (updated in place: step d reads only the other
  // parity's diagonals); trace[d]: diagonals -d-1 .. d+1 as step d found them, for the walk back.
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  let work = 0;
  for (let d = 0; d <= n + m; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return walkBack(a, b, trace);
    }
    work += 2 * d + 1;
    if (work > maxWork) return replaced;
  }
  return replaced;
}

/** The script, from the end back to the start, through the furthest points each step started from. */
function walkBack(a: string[], b: string[], trace: Int32Array[]): DiffLine[] {
  const out: DiffLine[] = [];
  let [x, y] = [a.length, b.length];
  for (let d = trace.length - 1; d > 0; d--) {
    const before = (diagonal: number) => trace[d]![diagonal + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && before(k - 1) < before(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = before(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ kind: "same", text: a[--x]! });
      y--;
    }
    if (down) out.push({ kind: "added", text: b[--y]! });
    else out.push({ kind: "removed", text: a[--x]! });
  }
  while (x > 0 && y > 0) {
    out.push({ kind: "same", text: a[--x]! });
    y--;
  }
  return out.reverse();
}
