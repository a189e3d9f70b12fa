import { patch } from "../helpers/api";
import { fixture, type Fixture } from "../helpers/endpoints";
import { RECORDS } from "../helpers/fixture";

/**
 * The records requests aim at, named by placeholders (`{{A.policy}}`) that are replaced when a request
 * is sent: a generated request stays printable and reproducible while the records behind it are
 * replaced. A is the organization whose key the fuzzer holds (claimed); B is another organization,
 * unclaimed, so an operator may write some of its records and none of A's.
 */
export type Owner = "A" | "B";

/** The record types a placeholder names: the fixture's records, and the public names of a brief and a directory. */
export const TYPES = [...RECORDS.map((r) => r.type), "shortcode", "slug"];

/** Records no organization owns: any key may name them. */
export const SHARED = new Set([...RECORDS.filter((r) => r.shared).map((r) => r.type), "shortcode", "slug"]);

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
    this.ids[owner] = idsOf(f);
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

function idsOf(f: Fixture): Record<string, string> {
  return { ...Object.fromEntries(RECORDS.map((r) => [r.type, r.id(f)])), shortcode: f.shortcode, slug: f.directorySlug };
}
