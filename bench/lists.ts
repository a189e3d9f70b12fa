// The list pages the bench loads, and the probe that reads D1's rows read for one request.
import { bearer, getJson, rotate, type LoadSpec } from "./load.ts";

/** GETs of `pathname` under the organization's keys in turn (each key has its own per-minute limit). */
export function listSpec(base: string, pathname: string, keys: readonly string[]): LoadSpec {
  const key = rotate(keys);
  return { url: `${base}${pathname}`, headers: () => bearer(key()) };
}

/**
 * The triager's filtered views of the inbox the bench measures beside the plain page 1. `bounded`: page
 * 1 must read under 200 rows at any size. A search that every seeded report matches is not: ranking
 * reads every match (the row says how many rows that costs).
 */
export const TRIAGE_VIEWS: { name: string; query: string; bounded: boolean }[] = [
  { name: "unread", query: "q[read_eq]=false", bounded: true },
  { name: "new, not triaged", query: "q[triage_state_eq]=new", bounded: true },
  { name: "deadline due soonest first", query: "sort=next_due_at", bounded: true },
  { name: "overdue", query: "q[overdue_eq]=true", bounded: true },
  { name: "waiting on the organization", query: "q[last_activity_by_eq]=reporter&sort=-last_activity_at", bounded: true },
  { name: "most recent activity", query: "sort=-last_activity_at", bounded: true },
  { name: "search, one match", query: `q[search]=${encodeURIComponent('"seeded report 500"')}`, bounded: true },
  { name: "search, every report matches", query: "q[search]=xss", bounded: false },
];

const query = (params: Record<string, string>) => `/v1/vulns?${new URLSearchParams(params)}`;

export interface LastPage {
  /** The page measured, the first page to compare it with, and how the row names them. */
  url: string;
  firstUrl: string;
  label: string;
}

/**
 * The last page of the organization's vulns. With cursors (`page[after]=` starts them), walk `links.next`
 * at the largest page size to the end, within `walkMs`; the first page of the walk is the comparison.
 * Without them (a 400 to `page[after]`), the last page by number, against page 1.
 */
export async function lastPage(base: string, keys: readonly string[], walkMs: number): Promise<LastPage> {
  const key = rotate(keys);
  const firstUrl = query({ "page[after]": "", "page[size]": "100" });
  const first = await getJson(`${base}${firstUrl}`, bearer(key()));
  if (first.status === 400) {
    const page1 = await getJson(`${base}/v1/vulns`, bearer(key()));
    const last = page1.body?.links?.last as string | undefined;
    if (!last) throw new Error(`GET /v1/vulns has no links.last (status ${page1.status}).`);
    const number = new URL(last, base).searchParams.get("page[number]");
    return { url: last, firstUrl: "/v1/vulns", label: `GET /v1/vulns last page (page ${number}) by number (no cursors yet)` };
  }
  if (first.status !== 200) throw new Error(`GET ${firstUrl} answered ${first.status}.`);
  const deadline = Date.now() + walkMs;
  let url = firstUrl;
  let next = first.body?.links?.next as string | null | undefined;
  let pages = 1;
  while (next && Date.now() < deadline) {
    const page = await getJson(`${base}${next}`, bearer(key()));
    if (page.status !== 200) throw new Error(`Walking cursors: GET ${next} answered ${page.status}.`);
    url = next;
    next = page.body?.links?.next;
    pages++;
  }
  const label = next
    ? `GET /v1/vulns deepest page by cursor in ${Math.round(walkMs / 1000)} s (page ${pages}, size 100; the walk did not reach the end)`
    : `GET /v1/vulns last page by cursor (page ${pages}, size 100)`;
  return { url, firstUrl, label };
}

export interface Probe {
  /** D1's rows read over the request, and its D1 round trips; null where the server does not say. */
  rowsRead: number | null;
  roundTrips: number | null;
  /** The part of them in a sharded deployment's catalog (0 in one database). */
  catalogRowsRead: number | null;
  catalogRoundTrips: number | null;
}

export async function probeRowsRead(url: string, headers: Record<string, string>): Promise<Probe> {
  const res = await fetch(url, { headers: { ...headers, "X-Bench-Rows-Read": "1" } });
  await res.arrayBuffer();
  const read = (name: string) => (res.headers.has(name) ? Number(res.headers.get(name)) : null);
  return {
    rowsRead: read("X-D1-Rows-Read"),
    roundTrips: read("X-Bench-D1-Round-Trips"),
    catalogRowsRead: read("X-Bench-Catalog-Rows-Read"),
    catalogRoundTrips: read("X-Bench-Catalog-Round-Trips"),
  };
}
