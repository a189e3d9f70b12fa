import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { type Cursor, decodeCursor, type Page } from "../../db/pagination";
import { SEVERITIES, TRIAGE_STATES, type Severity, type TriageState } from "../../db/schema";
import { BadInput } from "../../lib/domain-errors";
import { normalizeUuid, uuidv7 } from "../../lib/ids";
import { ftsQuery } from "../../lib/search-query";
import { LIMITS } from "../../lib/limits";
import { INBOX_VIEWS, inboxSurroundings, type InboxView, PICK_LIMIT, viewOf } from "../../services/inbox";
import { listMembers } from "../../services/members";
import { listVulns } from "../../services/vuln-list";
import { planComment } from "../../services/comments";
import { markVulnsRead, toRecord, vulnsRead } from "../../services/vulns/read";
import type { VulnUpdate } from "../../services/vulns/types";
import { updateVulns } from "../../services/vulns/update";
import { bulkConfirmPage, bulkDonePage, bulkWords } from "../../templates/console-bulk";
import { INBOX_SORTS, type InboxQuery, type InboxSort, inboxPage } from "../../templates/console-inbox";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { formOf, refusalOf, whoOf } from "./console-shell";
import { page } from "./shared";

/**
 * The inbox, /console: a view (its filters and order), a search and filters on top, a page of 25 by
 * cursor. Everything is GET /v1/vulns's list, read as the signed-in member; the tabs' counts, the
 * briefs and the members (for the filters and the assignee column) are read beside it.
 */
export const consoleInboxRouter = new Hono<AppEnv>();

export const INBOX_PAGE_SIZE = 25;

const bad = (parameter: string, detail: string) => new BadInput(`${parameter}: ${detail}`, { parameter });

function one<T extends string>(c: Context, name: string, allowed: readonly T[]): T | "" {
  const value = c.req.query(name) ?? "";
  if (value !== "" && !allowed.includes(value as T)) throw bad(name, `must be one of ${allowed.join(", ")}.`);
  return value as T | "";
}

/** The inbox's query, checked: anything else is a 400 page that says which parameter and why. */
export function inboxQueryOf(c: Context): InboxQuery & { cursor?: Page["cursor"] } {
  const view = (one(c, "view", INBOX_VIEWS) || "new") as InboxView;
  const sort = one(c, "sort", Object.keys(INBOX_SORTS) as InboxSort[]);
  const search = (c.req.query("q") ?? "").trim();
  if (search.length > LIMITS.searchLength) throw bad("q", `must be at most ${LIMITS.searchLength} characters.`);
  const briefText = c.req.query("brief") ?? "";
  const briefId = briefText && normalizeUuid(briefText);
  if (briefId === null) throw bad("brief", "must be a brief's id.");
  const severity = one<Severity>(c, "severity", SEVERITIES);
  const state = one<TriageState>(c, "state", TRIAGE_STATES);
  const after = c.req.query("after");
  const before = c.req.query("before");
  let cursor: Page["cursor"];
  if (after !== undefined || before !== undefined) {
    const direction = after !== undefined ? "after" : "before";
    const at: Cursor | null = decodeCursor((after ?? before)!);
    if (!at) throw bad(direction, "must be a cursor from the inbox's page links.");
    cursor = { direction, at };
  }
  return { view, sort: sort || (viewOf(view, { memberId: "", now: 0 }).sort as InboxSort), search, briefId, severity, state, cursor };
}

consoleInboxRouter.get("/console", signedIn("page"), async (c) => {
  const who = await whoOf(c);
  const ctx = serviceContext(c);
  const { cursor, ...query } = inboxQueryOf(c);
  const now = Date.now();
  const at = { memberId: who.memberId, now };
  const view = viewOf(query.view, at);
  const search = query.search ? ftsQuery(query.search) : undefined;
  if (search === null) throw bad("q", "must contain a word to search for.");
  const pageAsked: Page = { number: 1, size: INBOX_PAGE_SIZE, cursor: cursor ?? { direction: "after", at: null } };
  const [list, around] = await Promise.all([
    listVulns(ctx, {
      page: pageAsked,
      sort: query.sort,
      ...view.filters,
      ...(query.state ? { triageStates: [query.state] } : {}),
      ...(query.severity ? { severity: query.severity } : {}),
      ...(query.briefId ? { briefId: query.briefId } : {}),
      ...(search ? { search } : {}),
    }),
    inboxSurroundings(ctx, at),
  ]);
  const window = pageAsked.window;
  return page(
    c,
    inboxPage({
      who,
      query,
      counts: around.counts,
      rows: list.rows,
      total: list.total,
      next: window?.hasNext ? window.last : null,
      prev: window?.hasPrev ? window.first : null,
      briefs: around.briefs.map((b) => ({ id: b.id, name: b.name ?? "Unnamed brief" })),
      members: around.members.map((m) => ({ id: m.id, name: m.name ?? m.email })),
      now,
    }),
  );
});

/** The reports a bulk form names, read as the member may see them; the choice checked. */
async function bulkOf(c: Context<AppEnv>) {
  const ctx = serviceContext(c);
  const form = await formOf(c);
  const ids = [
    ...new Set(
      form
        .all("id")
        .map((id) => normalizeUuid(id))
        .filter((id): id is string => id !== null),
    ),
  ];
  const change = form.field("change");
  const reason = form.field("reason").trim().slice(0, LIMITS.commentLength);
  const members = await listMembers(ctx, { page: { number: 1, size: PICK_LIMIT }, sort: "created_at", joined: true });
  const words = bulkWords(change, new Map(members.rows.map((m) => [m.id, m.name ?? m.email])));
  if (ids.length === 0 || ids.length > LIMITS.vulnsPerBulkUpdate || !words)
    throw new BadInput(
      ids.length === 0
        ? "Tick at least one report in the inbox, then choose a change."
        : words
          ? `Choose at most ${LIMITS.vulnsPerBulkUpdate} reports at once.`
          : "Choose one of the changes the inbox offers.",
      { parameter: "id" },
    );
  const rows = (await vulnsRead(ctx, ids)).map(toRecord);
  if (rows.length === 0) throw new BadInput("None of the chosen reports is in this organization's inbox.", { parameter: "id" });
  return { ctx, ids: rows.map((r) => r.id), change, reason, words, rows };
}

// The first step shows what would change; only the confirmation's own POST changes anything.
consoleInboxRouter.post("/console/bulk", signedIn("page"), async (c) => {
  const who = await whoOf(c);
  const { ids, change, reason, words, rows } = await bulkOf(c);
  return page(c, bulkConfirmPage({ who, ids, change, reason, words, rows }));
});

consoleInboxRouter.post("/console/bulk/apply", signedIn("page"), async (c) => {
  const who = await whoOf(c);
  const { ctx, ids, change, reason, words, rows } = await bulkOf(c);
  try {
    let changed: number;
    if (change === "read") changed = await markVulnsRead(ctx, ids);
    else {
      const [kind, value] = [change.slice(0, change.indexOf(":")), change.slice(change.indexOf(":") + 1)];
      const input: VulnUpdate = kind === "state" ? { triage_state: value as TriageState } : { assigneeId: value || null };
      const before = new Map(rows.map((r) => [r.id, r.revision]));
      const after = await updateVulns(
        ctx,
        ids.map((id) => ({ id, input })),
        {
          also:
            kind === "state" && reason
              ? (p, now) => {
                  for (const id of ids)
                    planComment(ctx, p, {
                      record: {
                        id: uuidv7(),
                        vulnId: id,
                        organizationId: ctx.caller.organizationId!,
                        author: "organization",
                        visibility: "internal",
                        body: reason,
                        createdAt: now,
                      },
                    });
                }
              : undefined,
        },
      );
      changed = after.filter((r) => r.revision !== before.get(r.id)).length;
    }
    return page(c, bulkDonePage(who, words, (await vulnsRead(ctx, ids)).map(toRecord), changed));
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    return page(c, bulkConfirmPage({ who, ids, change, reason, words, rows, error: refused.message }), refused.status);
  }
});
