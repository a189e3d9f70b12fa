import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { BadInput } from "../../lib/domain-errors";
import { CSV_MEDIA_TYPE } from "../../lib/csv";
import { LIMITS } from "../../lib/limits";
import { listKeys } from "../../services/api-keys";
import { listAuditEvents, type AuditQuery } from "../../services/audit-events";
import { listMembers } from "../../services/members";
import { AUDIT_LABELS, auditPage, type AuditFilters } from "../../templates/console-settings-audit";
import type { FieldErrors } from "../../templates/console-settings";
import { csvOf, ListAuditEventsQuery } from "../v1/audit-events";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { cursorLinks, cursorPage } from "./console-settings-form";

/**
 * /console/settings/audit: the audit log as GET /v1/audit_events reads it (the same filters, checked by
 * its own query schema; cursor pages), and the same page as CSV (audit.csv, a download).
 */
export const consoleAuditRouter = new Hono<AppEnv>();

const PATH = "/console/settings/audit";
/** A page holds as many events as one page of the API may, so the CSV of a page is the page. */
const PER_PAGE = LIMITS.pageSize;

/** The form's fields and the API's parameters they are. */
const PARAMETERS = {
  actor: "q[actor_id_eq]",
  action: "q[action_eq]",
  target: "q[target_id_eq]",
  from: "q[at_gteq]",
  to: "q[at_lteq]",
} as const satisfies Record<keyof AuditFilters, string>;

/** A datetime-local value (the page says UTC) as the API's date-time; anything else as typed, for the schema to refuse. */
const utc = (local: string) =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(local) ? `${local}${local.length === 16 ? ":00" : ""}Z` : local;

type Read =
  | { ok: true; filters: AuditFilters; query: Omit<AuditQuery, "page"> }
  | { ok: false; filters: AuditFilters; errors: FieldErrors };

/** The address's filters, checked by the API's query schema (its messages, beside the form's fields). */
function readFilters(c: Context): Read {
  const field = (name: keyof AuditFilters) => (c.req.query(name) ?? "").trim().slice(0, 1024);
  const filters: AuditFilters = {
    actor: field("actor"),
    action: field("action"),
    target: field("target"),
    from: field("from"),
    to: field("to"),
  };
  const candidate = Object.fromEntries(
    Object.entries(PARAMETERS)
      .filter(([name]) => filters[name as keyof AuditFilters] !== "")
      .map(([name, parameter]) => {
        const value = filters[name as keyof AuditFilters];
        return [parameter, name === "from" || name === "to" ? utc(value) : value];
      }),
  );
  const parsed = ListAuditEventsQuery.safeParse(candidate);
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) {
      const name = (Object.keys(PARAMETERS) as (keyof AuditFilters)[]).find((n) => PARAMETERS[n] === issue.path[0]) ?? "action";
      (errors[name] ??= []).push(`${AUDIT_LABELS[name]} ${issue.message}.`);
    }
    return { ok: false, filters, errors };
  }
  const q = parsed.data;
  return {
    ok: true,
    filters,
    query: {
      actorId: q["q[actor_id_eq]"],
      action: q["q[action_eq]"],
      targetId: q["q[target_id_eq]"],
      from: q["q[at_gteq]"],
      to: q["q[at_lteq]"],
    },
  };
}

/** The service's refusal of a parameter (from after to), beside its field; anything else is thrown on. */
function refusedParameter(err: unknown): FieldErrors {
  if (!(err instanceof BadInput)) throw err;
  const parameter = err.problems[0]?.source && "parameter" in err.problems[0].source ? err.problems[0].source.parameter : "";
  const name = (Object.keys(PARAMETERS) as (keyof AuditFilters)[]).find((n) => PARAMETERS[n] === parameter) ?? "from";
  return { [name]: [`${AUDIT_LABELS[name]}: ${err.message.replace(/^q\[[a-z_]+\]: /, "")}`] };
}

consoleAuditRouter.get(PATH, signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const read = readFilters(c);
  const list = cursorPage(c, PER_PAGE);
  // Who can be picked as the actor: the organization's members and keys.
  const [members, keys] = await Promise.all([
    listMembers(ctx, { page: { number: 1, size: 100 }, sort: "created_at" }),
    listKeys(ctx, { page: { number: 1, size: 100 }, sort: "-created_at" }),
  ]);
  const actors = [
    ...members.rows.map((m) => ({ id: m.id, label: `${m.name ?? m.email} (member)` })),
    ...keys.rows.map((k) => ({ id: k.id, label: `${k.name ?? k.keyPrefix} (API key ${k.keyPrefix})` })),
  ];
  const view = { who: await whoOf(c), filters: read.filters, actors, csv: `${PATH}.csv${new URL(c.req.url).search}` };
  if (!read.ok) return page(c, auditPage({ ...view, errors: read.errors, events: [], total: 0, links: { prev: null, next: null } }), 400);
  try {
    const { rows, total } = await listAuditEvents(ctx, { ...read.query, page: list });
    return page(c, auditPage({ ...view, errors: {}, events: rows, total, links: cursorLinks(c, list) }));
  } catch (err) {
    return page(c, auditPage({ ...view, errors: refusedParameter(err), events: [], total: 0, links: { prev: null, next: null } }), 400);
  }
});

consoleAuditRouter.get(`${PATH}.csv`, signedIn("page"), async (c) => {
  const read = readFilters(c);
  if (!read.ok) return c.redirect(`${PATH}${new URL(c.req.url).search}`, 303);
  const { rows } = await listAuditEvents(serviceContext(c), { ...read.query, page: cursorPage(c, PER_PAGE) });
  return c.body(csvOf(rows), 200, {
    "Content-Type": `${CSV_MEDIA_TYPE}; charset=utf-8; header=present`,
    "Content-Disposition": 'attachment; filename="audit-log.csv"',
  });
});
