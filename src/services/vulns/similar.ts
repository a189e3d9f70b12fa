import { and, desc, eq } from "drizzle-orm";
import { vulnSimilarities, vulns } from "../../db/schema";
import { SIMILAR_LIMIT } from "../../lib/similarity";
import { tenantFilter, type ServiceContext } from "../context";
import { notFound } from "./read";

// The reports the intake found like a vuln (src/intake/similarity.ts), best first. The organization's
// side only: the reporter's API and pages never read this table.

export interface SimilarVuln {
  vulnId: string;
  similarId: string;
  score: number;
  reasons: string[];
}

/** Up to SIMILAR_LIMIT, by score then newest: one read batch, the vuln's own row and a seek on (vuln_id, score). */
export async function listSimilarVulns(ctx: ServiceContext, vulnId: string): Promise<SimilarVuln[]> {
  const [found, rows] = await ctx.db.batch([
    ctx.db
      .select({ id: vulns.id })
      .from(vulns)
      .where(and(eq(vulns.id, vulnId), tenantFilter(ctx, vulns.organizationId))),
    ctx.db
      .select({
        vulnId: vulnSimilarities.vulnId,
        similarId: vulnSimilarities.similarId,
        score: vulnSimilarities.score,
        reasons: vulnSimilarities.reasons,
      })
      .from(vulnSimilarities)
      .where(and(eq(vulnSimilarities.vulnId, vulnId), tenantFilter(ctx, vulnSimilarities.organizationId)))
      .orderBy(desc(vulnSimilarities.score), desc(vulnSimilarities.similarId))
      .limit(SIMILAR_LIMIT),
  ]);
  if (found.length === 0) throw notFound();
  return rows;
}
