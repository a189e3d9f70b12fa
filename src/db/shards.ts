/**
 * The platform's databases. Either one database (the `DB` binding) holds everything, or a catalog
 * (`CATALOG`) finds each organization's tenant database (`TENANT_1` .. `TENANT_K`), which holds all of
 * its rows. Every database is laid out by the same migrations. Which one a deployment is follows from its
 * bindings: a `TENANT_1` binding makes it sharded.
 */
export interface Shards {
  sharded: boolean;
  /** Where organizations are found: the `CATALOG` binding, or `DB` itself. */
  catalog: D1Database;
  /** The tenant databases' binding names, in order (`["DB"]` for one database). */
  names: readonly string[];
  /** A tenant database by its binding name; throws for a name this Worker is not bound to. */
  binding(name: string): D1Database;
}

/** The binding of a one-database deployment, which is its own catalog and its only tenant. */
export const SINGLE_DATABASE = "DB";
/** The catalog's binding name, which operators' keys open (they belong to no organization). */
export const CATALOG = "CATALOG";
const TENANT = /^TENANT_([1-9][0-9]*)$/;

const known = new WeakMap<object, Shards>();

/** The databases of the Worker's bindings (read once per env object). */
export function shardsOf(env: Env): Shards {
  const cached = known.get(env);
  if (cached) return cached;
  const bindings = env as unknown as Record<string, D1Database | undefined>;
  const names = Object.keys(bindings)
    .filter((name) => TENANT.test(name) && bindings[name])
    .sort((a, b) => Number(TENANT.exec(a)![1]) - Number(TENANT.exec(b)![1]));
  const sharded = names.length > 0;
  if (sharded && !bindings[CATALOG]) throw new Error("A sharded deployment (TENANT_1 ..) needs a CATALOG D1 binding.");
  const shards: Shards = {
    sharded,
    catalog: sharded ? bindings[CATALOG]! : env.DB,
    names: sharded ? names : [SINGLE_DATABASE],
    binding(name) {
      const d1 = name === CATALOG || (sharded ? names.includes(name) : name === SINGLE_DATABASE) ? bindings[name] : undefined;
      if (!d1) throw new Error(`No tenant database is bound as ${name}.`);
      return d1;
    },
  };
  known.set(env, shards);
  return shards;
}
