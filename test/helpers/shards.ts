import { env } from "cloudflare:workers";

// The databases of a test world: one (DB), or a catalog and two tenant databases (the workers-sharded project).

/** Whether this test file runs against the sharded layout. */
export const sharded = (): boolean => Boolean((env as unknown as Record<string, unknown>).TENANT_1);

/** The tenant databases' bindings by name. */
export function tenantBindings(): Record<string, D1Database> {
  const all = env as unknown as Record<string, D1Database>;
  return sharded() ? { TENANT_1: all.TENANT_1!, TENANT_2: all.TENANT_2! } : { DB: env.DB };
}

/** The shard the catalog places an organization in (DB in a one-database world). */
export async function shardOf(organizationId: string): Promise<string> {
  if (!sharded()) return "DB";
  const row = await env.CATALOG.prepare("SELECT shard FROM tenants WHERE organization_id = ?")
    .bind(organizationId)
    .first<{ shard: string }>();
  if (!row) throw new Error(`the catalog places no organization ${organizationId}`);
  return row.shard;
}

/** The database holding an organization's rows. */
export async function databaseOf(organizationId: string): Promise<D1Database> {
  return tenantBindings()[await shardOf(organizationId)]!;
}
