import type { ScopeAsset } from "../db/schema";
import { uuidv7 } from "../lib/ids";

export type ScopeAssetInput = { kind: string; value: string; short_description?: string | null };

/**
 * Scopes are written as whole arrays. An entry that was already there (same kind and value) keeps its
 * id, so clients can follow an entry across edits; new entries get new ids. Duplicates collapse.
 */
export function assignScopeIds(input: readonly ScopeAssetInput[], existing: readonly ScopeAsset[] = []): ScopeAsset[] {
  const known = new Map(existing.map((s) => [`${s.kind}\u0000${s.value}`, s.id]));
  const seen = new Set<string>();
  const out: ScopeAsset[] = [];
  for (const entry of input) {
    const key = `${entry.kind}\u0000${entry.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: known.get(key) ?? uuidv7(), kind: entry.kind, value: entry.value, short_description: entry.short_description ?? null });
  }
  return out;
}
