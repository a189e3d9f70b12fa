import type { ScopeAsset } from "../db/schema";
import { uuidv7 } from "../lib/ids";

export type ScopeAssetInput = { id?: string; kind: string; value: string; short_description?: string | null };

/**
 * Scopes are written as whole arrays. An entry keeps its id when it is sent back with that id (an
 * edit), or when it was already there with the same kind and value; other entries get new ids, and
 * ids that are not the array's own are ignored. Duplicates (same kind and value) collapse.
 */
export function assignScopeIds(input: readonly ScopeAssetInput[], existing: readonly ScopeAsset[] = []): ScopeAsset[] {
  const byValue = new Map(existing.map((s) => [`${s.kind}\u0000${s.value}`, s.id]));
  const ownIds = new Set(existing.map((s) => s.id));
  const seen = new Set<string>();
  const used = new Set<string>();
  const out: ScopeAsset[] = [];
  for (const entry of input) {
    const key = `${entry.kind}\u0000${entry.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const candidates = [entry.id && ownIds.has(entry.id) ? entry.id : undefined, byValue.get(key)];
    const id = candidates.find((c): c is string => c !== undefined && !used.has(c)) ?? uuidv7();
    used.add(id);
    out.push({ id, kind: entry.kind, value: entry.value, short_description: entry.short_description ?? null });
  }
  return out;
}
