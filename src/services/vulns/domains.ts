import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { assets, vulnAssets } from "../../db/schema";
import { inList, subquery } from "../../db/queries";
import { uuidv7 } from "../../lib/ids";
import type { ServiceContext } from "../context";
import { consequence } from "../unit-of-work";

/**
 * The statements that make the vuln's domains exactly `domains`: domain assets made as needed, then
 * linked. With a guard (updates), none of them changes anything unless the vuln is still at the
 * revision the request read, so a PATCH that loses a race writes nothing at all.
 */
export function domainStatements(
  ctx: ServiceContext,
  { id: vulnId, organizationId }: { id: string; organizationId: string },
  { domains, now, guard }: { domains: string[]; now: string; guard?: number },
): BatchItem<"sqlite">[] {
  const unchanged = guard === undefined ? sql`1` : subquery`EXISTS (SELECT 1 FROM vulns WHERE id = ${vulnId} AND revision = ${guard})`;
  const statements: BatchItem<"sqlite">[] = [];
  if (guard !== undefined) statements.push(ctx.db.delete(vulnAssets).where(and(eq(vulnAssets.vulnId, vulnId), unchanged)));
  if (domains.length) {
    // The new assets come from one JSON parameter (ids made here), so 50 domains bind 5 values.
    const pairs = JSON.stringify(domains.map((value) => [uuidv7(), value]));
    // A report's domains become the organization's assets as its consequence: the `vulns` scope makes them.
    statements.push(
      consequence(
        ctx.db
          .insert(assets)
          .select(
            ctx.db
              .select({
                id: sql<string>`json_extract(value, '$[0]')`.as("id"),
                organizationId: sql<string>`${organizationId}`.as("organization_id"),
                kind: sql<string>`'domain'`.as("kind"),
                value: sql<string>`json_extract(value, '$[1]')`.as("value"),
                shortDescription: sql<null>`null`.as("short_description"),
                createdAt: sql<string>`${now}`.as("created_at"),
                updatedAt: sql<string>`${now}`.as("updated_at"),
              })
              .from(sql`json_each(${pairs})`)
              .where(unchanged),
          )
          .onConflictDoNothing(),
      ),
    );
    statements.push(
      ctx.db
        .insert(vulnAssets)
        .select(
          ctx.db
            .select({ vulnId: sql<string>`${vulnId}`.as("vuln_id"), assetId: assets.id })
            .from(assets)
            .where(and(eq(assets.organizationId, organizationId), eq(assets.kind, "domain"), inList(assets.value, domains), unchanged)),
        )
        .onConflictDoNothing(),
    );
  }
  return statements;
}
