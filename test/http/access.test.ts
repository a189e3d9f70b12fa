import { env } from "cloudflare:workers";
import { getTableName, is, Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import * as schema from "../../src/db/schema";
import { type Caller, ROLE_SCOPES } from "../../src/lib/caller";
import { InsufficientScope } from "../../src/lib/domain-errors";
import { CLASSIFIED_TABLES } from "../../src/services/access";
import { createAsset, listAssets } from "../../src/services/assets";
import { createComment } from "../../src/services/comments";
import type { ServiceContext } from "../../src/services/context";
import { get } from "../helpers/api";
import { databaseOf } from "../helpers/shards";
import { organizationWithVuln } from "../helpers/factories";

// Scopes are the services' rule, so a member's role is refused exactly as a key with its scopes is,
// whichever front door calls the service (a console page calls it directly, as here).

describe("the scope of each table's change", () => {
  it("is said for every table of the schema, so a new table cannot be written without one", () => {
    const tables = Object.values(schema)
      .filter((value) => is(value, Table))
      .map((table) => getTableName(table as Table))
      .sort();
    expect([...CLASSIFIED_TABLES].sort()).toEqual(tables);
  });
});

describe("a member's role, enforced by the services", () => {
  const as = (org: { id: string }, role: keyof typeof ROLE_SCOPES): ServiceContext => {
    const caller: Caller = {
      keyId: "session",
      kind: "member",
      organizationId: org.id,
      scopes: ROLE_SCOPES[role],
      name: role,
      member: { id: `member-${role}`, role },
    };
    return { db: createDb(databases.get(org.id) ?? env.DB), caller, queue: env.EVENTS, defer: () => {} };
  };
  // A sharded world's services run in the organization's own database (placed by the catalog).
  const databases = new Map<string, D1Database>();
  const placed = async <T extends { org: { id: string } }>(made: T): Promise<T> => {
    databases.set(made.org.id, await databaseOf(made.org.id));
    return made;
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => "allowed",
      (err: unknown) => (err instanceof InsufficientScope ? err.scope : String(err)),
    );
  const asset = { kind: "domain" as const, value: `${crypto.randomUUID()}.example.com` };

  it("a viewer reads, and changes nothing", async () => {
    const { org, vulnId } = await placed(await organizationWithVuln());
    const viewer = as(org, "viewer");
    expect((await listAssets(viewer, { page: { number: 1, size: 25 } })).rows).toEqual([]);
    expect(await refusal(createAsset(viewer, asset, undefined))).toBe("settings");
    expect(await refusal(createComment(viewer, { author: "organization", vulnId }, { body: "Seen", visibility: "internal" }))).toBe(
      "vulns",
    );
    expect((await get(`/v1/vulns/${vulnId}/comments`, org.key)).body.data).toEqual([]);
  });

  it("a triager changes reports but not settings; an owner changes both", async () => {
    const { org, vulnId } = await placed(await organizationWithVuln());
    expect(
      await refusal(createComment(as(org, "triager"), { author: "organization", vulnId }, { body: "Triaged", visibility: "internal" })),
    ).toBe("allowed");
    expect(await refusal(createAsset(as(org, "triager"), asset, undefined))).toBe("settings");
    expect(await refusal(createAsset(as(org, "owner"), asset, undefined))).toBe("allowed");
  });
});
