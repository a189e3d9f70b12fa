import { get, patch } from "../helpers/api";
import { EVENT_TYPE_ID, fixture, type Fixture } from "../helpers/endpoints";

/**
 * The records requests aim at, named by placeholders (`{{A.policy}}`) that are replaced when a request
 * is sent: a generated request stays printable and reproducible while the records behind it are
 * replaced. A is the organization whose key the fuzzer holds (claimed); B is another organization,
 * unclaimed, so an operator may write some of its records and none of A's.
 */
export type Owner = "A" | "B";

export const TYPES = [
  "organization",
  "policy",
  "asset",
  "brief",
  "api_key",
  "vuln",
  "webhook",
  "webhook_delivery",
  "contact",
  "notification",
  "advisory",
  "directory",
  "directory_listing",
  "directory_listing_item",
  "trigger_event_type",
  "shortcode",
  "slug",
] as const;

/** Records no organization owns: any key may name them. */
export const SHARED = new Set(["directory", "trigger_event_type", "shortcode", "slug"]);

const PLACEHOLDER = /\{\{(A|B)\.(\w+)\}\}/g;

export const placeholder = (owner: Owner, type: string) => `{{${owner}.${type}}}`;

/** The records a text names, by owner and type. */
export function namedIn(text: string): { owner: Owner; type: string }[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({ owner: m[1] as Owner, type: m[2]! }));
}

export class Pool {
  private ids = {} as Record<Owner, Record<string, string>>;
  orgKey = "";
  operatorKey = "";
  claimed: Record<Owner, boolean> = { A: true, B: false };
  /** Owners one of whose records a request deleted: remade before the next batch of requests. */
  readonly spent = new Set<Owner>();
  refreshes = 0;

  static async create(): Promise<Pool> {
    const pool = new Pool();
    await pool.make("A");
    await pool.make("B");
    return pool;
  }

  /** A fresh set of records for `owner`: a whole new organization with everything it can own. */
  async make(owner: Owner): Promise<void> {
    const f = await fixture();
    if (owner === "A") {
      this.orgKey = f.org.key;
      this.operatorKey = f.org.operatorKey;
    }
    const claimed = owner === "A";
    if (!claimed) {
      const res = await patch(`/v1/organizations/${f.org.id}`, f.org.operatorKey, {
        data: { type: "organization", attributes: { claimed: false } },
      });
      if (res.status !== 200) throw new Error(`unclaiming the second organization: ${res.status} ${res.text}`);
    }
    this.claimed[owner] = claimed;
    this.ids[owner] = await idsOf(f);
    this.spent.delete(owner);
    this.refreshes++;
  }

  async refreshSpent(): Promise<void> {
    for (const owner of [...this.spent]) await this.make(owner);
  }

  all(): string[] {
    return (["A", "B"] as const).flatMap((owner) =>
      TYPES.filter((t) => !["shortcode", "slug"].includes(t)).map((t) => placeholder(owner, t)),
    );
  }

  /** The records of an owner that tenancy applies to, as [type, id]. */
  recordsOf(owner: Owner): [string, string][] {
    return Object.entries(this.ids[owner] ?? {}).filter(([type]) => !SHARED.has(type));
  }

  /** The text with every placeholder replaced by the current record's id. */
  substitute(text: string): string {
    return text.replace(PLACEHOLDER, (_, owner: Owner, type: string) => this.ids[owner]?.[type] ?? `unknown-${type}`);
  }

  /** Which owner's organization an id (as sent) belongs to, if it is one of the pool's. */
  ownerOfOrganization(id: string): Owner | undefined {
    return (["A", "B"] as const).find((o) => this.ids[o]?.organization === id);
  }
}

async function idsOf(f: Fixture): Promise<Record<string, string>> {
  const brief = await get(`/v1/briefs/${f.briefId}`, f.org.key);
  const dir = await get(`/v1/directories/${f.directoryId}`, f.org.key);
  if (brief.status !== 200 || dir.status !== 200) throw new Error(`reading the fixture: ${brief.status} ${dir.status}`);
  return {
    organization: f.org.id,
    policy: f.policyId,
    asset: f.assetId,
    brief: f.briefId,
    api_key: f.apiKeyId,
    vuln: f.vulnId,
    webhook: f.webhookId,
    webhook_delivery: f.deliveryId,
    contact: f.contactId,
    notification: f.notificationId,
    advisory: f.advisoryId,
    directory: f.directoryId,
    directory_listing: f.listingId,
    directory_listing_item: f.itemId,
    trigger_event_type: EVENT_TYPE_ID,
    shortcode: brief.body.data.attributes.shortcode,
    slug: dir.body.data.attributes.slug,
  };
}
