import type { FuzzCase } from "./cases";
import { pathOf, type Answer, type KeyKind, type Problem } from "./harness";

interface Finding {
  problem: Problem;
  count: number;
  operations: Set<string>;
  keys: Set<KeyKind>;
  /** The smallest request that showed it. */
  example: { c: FuzzCase; key: KeyKind; answer: Answer; size: number };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}... (${s.length} characters)` : s);

/** A request as a person would retype it; ids and keys stay placeholders ({{A.policy}}, {{key:org}}). */
export function describeRequest(c: FuzzCase, key: KeyKind): string {
  const lines = [
    `${c.method} ${clip(pathOf(c), 200)}${c.query ? `?${clip(c.query, 200)}` : ""}  [key: ${key === "literal" ? "Authorization below" : key}]`,
  ];
  if (key === "literal") lines.push(`  Authorization: ${c.authorization === null ? "(none)" : clip(String(c.authorization), 100)}`);
  for (const [name, value] of Object.entries(c.headers)) lines.push(`  ${name}: ${clip(JSON.stringify(value), 100)}`);
  if (c.body) {
    const contentType = c.contentType === undefined ? (c.op.body?.mediaTypes[0] ?? "application/vnd.api+json") : c.contentType;
    lines.push(`  Content-Type: ${contentType === null ? "(none)" : JSON.stringify(contentType)}`);
    lines.push(`  body (${c.body.note}): ${clip(c.body.text, 400)}`);
    if (c.body.badBytes)
      lines.push(`  raw bytes ${c.body.badBytes.bytes.map((b) => b.toString(16)).join(" ")} inserted at character ${c.body.badBytes.at}`);
  }
  if (c.mustFail.length) lines.push(`  wrong with it: ${c.mustFail.join("; ")}`);
  return lines.join("\n");
}

/** Problems grouped by what went wrong (one group, one defect to look at), with the operations and keys that showed it. */
export class Findings {
  private readonly groups = new Map<string, Finding>();
  fiveXX = 0;
  failedWrites = 0;

  record(c: FuzzCase, key: KeyKind, answer: Answer, problems: Problem[]): void {
    if (answer.status >= 500) this.fiveXX++;
    if (problems.some((p) => p.label.startsWith("a failed request wrote"))) this.failedWrites++;
    for (const problem of problems) {
      const size = (c.body?.text.length ?? 0) + c.query.length + c.pathValues.join("").length;
      const found = this.groups.get(problem.label);
      if (!found) {
        this.groups.set(problem.label, {
          problem,
          count: 1,
          operations: new Set([`${c.method} ${c.op.template}`]),
          keys: new Set([key]),
          example: { c, key, answer, size },
        });
        continue;
      }
      found.count++;
      found.operations.add(`${c.method} ${c.op.template}`);
      found.keys.add(key);
      if (size < found.example.size) found.example = { c, key, answer, size };
    }
  }

  get size(): number {
    return this.groups.size;
  }

  report(): string {
    return [...this.groups.values()]
      .map((f, i) =>
        [
          `#${i + 1} ${f.problem.label} (${f.count}x; keys: ${[...f.keys].join(", ")})`,
          `  on: ${[...f.operations].sort().join(", ")}`,
          f.problem.detail ? `  ${clip(f.problem.detail, 300)}` : "",
          describeRequest(f.example.c, f.example.key).replace(/^/gm, "  "),
          `  -> ${f.example.answer.status} ${clip(f.example.answer.text, 300)}`,
        ]
          .filter(Boolean)
          .join("\n"),
      )
      .join("\n\n");
  }
}
