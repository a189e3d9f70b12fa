import { Invalid } from "../../lib/domain-errors";
import type { ServiceContext } from "../context";
import { readBatch } from "../unit-of-work";
import { DUPLICATE_OF, moveProblems, namedOriginal } from "./next";
import { placed } from "./members";
import { toRecord, vulnsRead } from "./read";
import type { VulnRecord, VulnUpdate } from "./types";

/** Where each vuln of a request points once the request is applied (null: it is no duplicate). */
type After = ReadonlyMap<string, string | null>;

/**
 * The original a duplicate of `named` ends at, following the request's moves first and the stored
 * rows (`stored`) after them; null when following it comes back to `from` or loops.
 */
function originalOf(
  after: After,
  stored: ReadonlyMap<string, VulnRecord>,
  { from, named }: { from: string; named: string },
): string | null {
  const seen = new Set([from]);
  let current = named;
  for (;;) {
    if (seen.has(current)) return null;
    seen.add(current);
    const row = stored.get(current);
    const next = after.has(current) ? after.get(current) : row?.triageState === "duplicate" ? row.duplicateOfId : null;
    if (!next) return current;
    current = next;
  }
}

/** The vulns the request's duplicates name, as the caller may see them. */
async function namedRead(ctx: ServiceContext, after: After): Promise<Map<string, VulnRecord>> {
  const ids = [...new Set([...after.values()].filter((id): id is string => id !== null))];
  const rows = ids.length ? (await readBatch(ctx, [vulnsRead(ctx, ids)]))[0] : [];
  return new Map(rows.map((r) => [r.id, toRecord(r)] as const));
}

/**
 * Checks each change's states and original, and resolves the originals named: both states in one
 * PATCH must agree; a duplicate names an original (another of the organization's vulns, and if that
 * is itself a duplicate, its original instead), and only a duplicate has one. A bulk change is judged
 * whole, by the states the request leaves: a change naming another vuln of the same request follows it
 * where the request moves it, so a chain (X of Y, Y of Z) ends at the original (Z) and a cycle (X of Y,
 * Y of X) is refused like a vuln naming itself. Answers the original's id per vuln whose change names one.
 */
export async function resolveDuplicates(
  ctx: ServiceContext,
  changes: readonly { id: string; input: VulnUpdate }[],
  {
    found,
    itemOf,
  }: {
    found: Map<string, VulnRecord>;
    /** Which resource of the request change `i` is (undefined: the request changes one). */
    itemOf: (index: number) => number | undefined;
  },
): Promise<Map<string, string>> {
  const after: After = new Map(changes.map(({ id, input }) => [id, namedOriginal(found.get(id)!, input)] as const));
  const stored = await namedRead(ctx, after);
  const resolved = new Map<string, string>();
  changes.forEach(({ id, input }, i) => {
    const existing = found.get(id)!;
    const [problem] = moveProblems(existing, input);
    if (problem) throw Invalid.at(placed(problem.member, itemOf(i)), problem.detail);
    const named = after.get(id);
    // No duplicate (one without an original was refused above).
    if (!named) return;
    const relationship = placed(DUPLICATE_OF, itemOf(i));
    if (input.duplicateOf !== undefined) {
      const target = stored.get(named);
      if (!target || target.organizationId !== existing.organizationId) throw Invalid.at(relationship, "duplicate_of does not exist.");
    } else if (![...after.keys()].some((other) => other !== id && after.get(other) !== null)) {
      // Its original stays, and no other change of the request moves anything it could lead through.
      return;
    }
    const original = originalOf(after, stored, { from: id, named });
    if (original === null)
      throw Invalid.at(
        relationship,
        changes.length > 1
          ? "a vuln cannot duplicate itself (nor the report it is the original of), also through the other changes of this request."
          : "a vuln cannot duplicate itself (nor the report it is the original of).",
      );
    if (original !== named || input.duplicateOf !== undefined) resolved.set(id, original);
  });
  return resolved;
}
