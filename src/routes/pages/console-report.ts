import { Hono, type Context } from "hono";
import { sql } from "drizzle-orm";
import type { AppEnv } from "../../http/app-env";
import { vulns, REGULATORY_REPORT_KINDS, type CommentVisibility, type RegulatoryReportKind } from "../../db/schema";
import { fillPlaceholders } from "../../lib/canned-responses";
import { uuidv7 } from "../../lib/ids";
import { LIMITS } from "../../lib/limits";
import { createComment, planComment } from "../../services/comments";
import type { ServiceContext } from "../../services/context";
import { createRegulatoryReport } from "../../services/regulatory-reports";
import { readReportPage } from "../../services/report-page";
import { markVulnsRead, vulnIdOf } from "../../services/vulns/read";
import { updateVulns } from "../../services/vulns/update";
import { reportPage, type ReportPageView, type TriageForm } from "../../templates/console-report";
import { changeOf } from "../v1/vulns";
import { UpdateVulnInput } from "../v1/vulns/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { formOf, refusalOf, whoOf } from "./console-shell";
import { page } from "./shared";

/**
 * A report's page in the console, /console/reports/{shortcode}: read in one batch (and, the first time
 * the organization opens it, marked read as the API's first GET marks it). Its forms call the services
 * the API calls: the triage form goes through PATCH /v1/vulns/{id}'s own schema and updateVulns, a
 * reply through createComment, a filing through createRegulatoryReport.
 */
export const consoleReportRouter = new Hono<AppEnv>();

const SAVED: Record<string, string> = {
  triage: "The triage was saved.",
  reply: "Your message was added to the conversation.",
  asked: "Your question was sent and the report waits for the reporter's answer.",
  filing: "The filing was recorded.",
};

async function shown(c: Context<AppEnv>, more: Partial<ReportPageView> = {}, status: 200 | 403 | 404 | 409 | 422 = 200) {
  const ctx = serviceContext(c);
  const who = await whoOf(c);
  const data = await readReportPage(ctx, c.req.param("shortcode")!);
  if (!data.vuln.readAt && c.req.method === "GET") {
    await markVulnsRead(ctx, [data.vuln.id], { opened: true });
    data.vuln.readAt = new Date().toISOString();
  }
  const done = SAVED[c.req.query("saved") ?? ""];
  // A canned response chosen: the reply box starts from it, its placeholders filled (the member edits, then sends).
  const canned = data.canned.find((r) => r.id === c.req.query("canned"));
  const reply = canned
    ? {
        body: fillPlaceholders(canned.body, {
          shortcode: data.vuln.shortcode,
          policy_url: data.policyShortcode ? `${c.env.PUBLIC_ORIGIN}/p/${data.policyShortcode}` : null,
          reporter_name: null,
        }),
        visibility: canned.visibility,
      }
    : undefined;
  return page(c, reportPage({ who, data, now: Date.now(), done, reply, ...more }), status);
}

consoleReportRouter.get("/console/reports/:shortcode", signedIn("page"), (c) => shown(c));

const back = (c: Context, saved: string) => c.redirect(`/console/reports/${c.req.param("shortcode")}?saved=${saved}`, 303);

/** The form's datetime-local (UTC, minutes) as an ISO time, or what was typed (the schema then says why not). */
const isoOf = (local: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? `${local}:00.000Z` : local);

/** Where a problem's pointer lands in the triage form. */
function fieldOf(pointer: string | undefined): keyof TriageForm {
  const member = pointer?.split("/").at(pointer.includes("/relationships/") ? 3 : -1) ?? "";
  const known: (keyof TriageForm)[] = [
    "triage_state",
    "duplicate_of",
    "severity",
    "cvss_vector",
    "cwe_ids",
    "exploitation_known_at",
    "assignee",
  ];
  if (member === "processing_state") return "triage_state";
  if (member === "actively_exploited") return "exploitation_known_at";
  return known.find((k) => pointer?.includes(`/${k}`) || k === member) ?? "triage_state";
}

async function triageInput(ctx: ServiceContext, current: { id: string; assigneeId: string | null }, form: TriageForm) {
  const attributes: Record<string, unknown> = {
    triage_state: form.triage_state,
    severity: form.severity || null,
    cvss_vector: form.cvss_vector.trim() || null,
    cwe_ids: form.cwe_ids
      .split(/[\s,;]+/)
      .filter(Boolean)
      .map((id) => (/^\d+$/.test(id) ? `CWE-${id}` : id.toUpperCase())),
    actively_exploited: form.actively_exploited,
    ...(form.actively_exploited && form.exploitation_known_at ? { exploitation_known_at: isoOf(form.exploitation_known_at) } : {}),
  };
  const relationships: Record<string, unknown> = {};
  if (form.triage_state === "duplicate") {
    const code = form.duplicate_of.trim();
    relationships.duplicate_of = { data: code ? { type: "vuln", id: await vulnIdOf(ctx, code).catch(() => code) } : null };
  }
  if (form.assignee !== (current.assigneeId ?? ""))
    relationships.assignee = { data: form.assignee ? { type: "member", id: form.assignee } : null };
  return { data: { type: "vuln", id: current.id, attributes, relationships } };
}

consoleReportRouter.post("/console/reports/:shortcode/triage", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const { field } = await formOf(c);
  const form: TriageForm = {
    triage_state: field("triage_state"),
    duplicate_of: field("duplicate_of"),
    reason: field("reason").trim().slice(0, LIMITS.commentLength),
    severity: field("severity"),
    cvss_vector: field("cvss_vector"),
    cwe_ids: field("cwe_ids"),
    actively_exploited: field("actively_exploited") === "true",
    exploitation_known_at: field("exploitation_known_at"),
    assignee: field("assignee"),
  };
  const refuse = (problems: { field: string; detail: string }[], status: 403 | 404 | 409 | 422) =>
    shown(c, { triage: { form, problems } }, status);
  const current = await readReportPage(ctx, c.req.param("shortcode"));
  const parsed = UpdateVulnInput.safeParse(await triageInput(ctx, current.vuln, form));
  if (!parsed.success)
    return refuse(
      parsed.error.issues.map((i) => ({ field: fieldOf(`/${i.path.join("/")}`), detail: i.message })),
      422,
    );
  const moved = form.triage_state !== current.vuln.triageState;
  try {
    await updateVulns(ctx, [{ id: current.vuln.id, input: changeOf(parsed.data.data) }], {
      bulk: false,
      also: (p, now) => {
        if (moved && form.reason) planComment(ctx, p, { record: note(ctx, current.vuln.id, form.reason, "internal", now) });
      },
    });
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    return refuse(
      refused.problems.map((p) => ({ field: fieldOf(p.pointer), detail: p.detail })),
      refused.status as 403 | 404 | 409 | 422,
    );
  }
  return back(c, "triage");
});

const note = (ctx: ServiceContext, vulnId: string, body: string, visibility: CommentVisibility, now: string) => ({
  id: uuidv7(),
  vulnId,
  organizationId: ctx.caller.organizationId!,
  author: "organization" as const,
  visibility,
  body,
  createdAt: now,
});

consoleReportRouter.post("/console/reports/:shortcode/comments", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const { field } = await formOf(c);
  const body = field("body");
  const visibility = field("visibility");
  const ask = field("send") === "ask";
  const refuse = (error: string, status: 403 | 404 | 409 | 422) => shown(c, { reply: { body, visibility, error } }, status);
  if (!body.trim()) return refuse("Write a message first.", 422);
  if (body.length > LIMITS.commentLength) return refuse(`A message is at most ${LIMITS.commentLength} characters.`, 422);
  if (visibility !== "reporter" && visibility !== "internal")
    return refuse("Choose who sees the message: the reporter too, or your organization only.", 422);
  if (ask && visibility !== "reporter") return refuse("A question for the reporter must be one the reporter sees.", 422);
  const vulnId = await vulnIdOf(ctx, c.req.param("shortcode"));
  try {
    if (ask)
      // The question and the move to needs_more_info, one batch: a reply sent to nobody never waits for an answer.
      await updateVulns(ctx, [{ id: vulnId, input: { triage_state: "needs_more_info" } }], {
        bulk: false,
        also: (p, now) =>
          planComment(ctx, p, { record: note(ctx, vulnId, body, "reporter", now), also: sql` AND ${vulns.followUpTokenHash} IS NOT NULL` }),
      });
    else await createComment(ctx, { author: "organization", vulnId }, { body, visibility });
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    return refuse(refused.message, refused.status as 403 | 404 | 409 | 422);
  }
  return back(c, ask ? "asked" : "reply");
});

consoleReportRouter.post("/console/reports/:shortcode/filings", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const { field } = await formOf(c);
  const kind = field("kind") as RegulatoryReportKind;
  if (!REGULATORY_REPORT_KINDS.includes(kind)) return shown(c, {}, 422);
  const vulnId = await vulnIdOf(ctx, c.req.param("shortcode"));
  try {
    await createRegulatoryReport(ctx, vulnId, {
      kind,
      submitted_at: isoOf(field("submitted_at")),
      reference: field("reference").trim() || null,
      body: field("body").slice(0, LIMITS.regulatoryReportLength),
    });
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    return shown(c, { done: `The filing was not recorded: ${refused.message}` }, refused.status as 403 | 404 | 409 | 422);
  }
  return back(c, "filing");
});
