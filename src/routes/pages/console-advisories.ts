import { type Context, Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { type AdvisoryLinks, advisoryLinks } from "../../lib/advisory";
import { ADVISORY_RENDERINGS, type AdvisoryRendering, renderAdvisory } from "../../lib/advisory-renderings";
import { DomainError, NotFound } from "../../lib/domain-errors";
import { normalizeUuid } from "../../lib/ids";
import { LIMITS } from "../../lib/limits";
import { type AdvisoryRecord, createAdvisory, getAdvisory, listAdvisories, updateAdvisory } from "../../services/advisories";
import { type NamedReport, previewAdvisory, reportsByShortcode, reportsNamed } from "../../services/advisory-previews";
import { mayChange } from "../../services/access";
import type { ServiceContext } from "../../services/context";
import { type AdvisoryFormValues, EMPTY_PRODUCT, type FormProblems } from "../../templates/console-advisory-editor";
import { advisoryEditorPage, advisoryListPage, confirmPage, previewPage } from "../../templates/console-advisories";
import type { Who } from "../../templates/console-layout";
import { serviceContext } from "../v1/handler-helpers";
import { formOf, problemsOf, requestOf, shortcodesOf, valuesOf } from "./console-advisory-form";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { limitFormBody, page } from "./shared";

/**
 * The console's advisories (/console/advisories): the list, a draft's editor, publish, revise with a
 * note, withdraw, and previews of the renderings. Every change is the API's service with the member as
 * the caller (a viewer's is refused there, 403); every form that comes back keeps what was typed.
 */
export const consoleAdvisoriesRouter = new Hono<AppEnv>();

/** An advisory's form is a few of the API's largest members at most (the description's 100,000 characters, with room for UTF-8). */
const advisoryBody = limitFormBody(1024 * 1024);
const EDITOR = "/console/advisories/:id{[0-9a-fA-F-]{36}}";

const idOf = (c: Context<AppEnv>) => {
  const id = normalizeUuid(c.req.param("id") ?? "");
  if (!id) throw new NotFound("advisory", "No advisory has that id.");
  return id;
};

/** The reports the advisories name, by id, for their shortcodes. */
async function namedReports(ctx: ServiceContext, advisories: AdvisoryRecord[]): Promise<Map<string, NamedReport>> {
  const reports = await reportsNamed(ctx, [...new Set(advisories.flatMap((a) => a.vulnIds))]);
  return new Map(reports.map((r) => [r.id, r]));
}

async function body(c: Context<AppEnv>) {
  return (await c.req.parseBody()) as Record<string, string>;
}

consoleAdvisoriesRouter.get("/console/advisories", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const { rows, total } = await listAdvisories(ctx, { page: { number: 1, size: 100 }, sort: "-updated_at" });
  return page(c, advisoryListPage({ who: await whoOf(c), rows, total, reports: await namedReports(ctx, rows) }));
});

/** A new draft's form: empty, or from a report (?vuln=SHORTCODE) with its title and shortcode. */
consoleAdvisoriesRouter.get("/console/advisories/new", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const code = c.req.query("vuln");
  const [report] = code ? await reportsByShortcode(ctx, [code]).catch(() => []) : [];
  const values: AdvisoryFormValues = {
    ...valuesOfNothing(),
    ...(report && { title: report.title.slice(0, LIMITS.titleLength), vulns: report.shortcode }),
  };
  return editor(c, { values, problems: code && !report ? { vulns: [`${code} is not a report of the organization.`] } : {} });
});

consoleAdvisoriesRouter.post("/console/advisories", advisoryBody, signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  mayChange(ctx, "advisories");
  const { values, rowsChanged } = formOf(await body(c));
  if (rowsChanged) return editor(c, { values, problems: {} });
  const refused = await submitted(ctx, values, async (reports) => {
    const request = requestOf(values, reports, { create: true });
    if (!request.ok) return request.problems;
    const made = await createAdvisory(ctx, request.attributes, request.vulnIds);
    return made.id;
  });
  if (typeof refused === "string") return c.redirect(`/console/advisories/${refused}`, 303);
  return editor(c, { values, problems: refused }, 422);
});

consoleAdvisoriesRouter.get(EDITOR, signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const advisory = await getAdvisory(ctx, idOf(c));
  const reports = await namedReports(ctx, [advisory]);
  return editor(c, { advisory, reports, values: valuesOf(advisory, [...reports.values()]), problems: {} });
});

/** Saves a draft, or freezes a published advisory's next revision with its note. */
consoleAdvisoriesRouter.post(EDITOR, advisoryBody, signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  mayChange(ctx, "advisories");
  const id = idOf(c);
  const advisory = await getAdvisory(ctx, id);
  const { values, rowsChanged } = formOf(await body(c));
  if (rowsChanged) return editor(c, { advisory, values, problems: {} });
  const refused = await submitted(ctx, values, async (reports) => {
    const request = requestOf(values, reports, { create: false, id, revising: advisory.state === "published" });
    if (!request.ok) return request.problems;
    await updateAdvisory(ctx, id, { input: request.attributes, vulnIds: request.vulnIds });
    return id;
  });
  if (typeof refused === "string") return c.redirect(`/console/advisories/${id}`, 303);
  return editor(c, { advisory, values, problems: refused }, 422);
});

for (const action of ["publish", "withdraw"] as const) {
  consoleAdvisoriesRouter.get(`${EDITOR}/${action}`, signedIn("page"), async (c) => {
    const advisory = await getAdvisory(serviceContext(c), idOf(c));
    return page(c, confirmPage(await whoOf(c), advisory, action));
  });
  consoleAdvisoriesRouter.post(`${EDITOR}/${action}`, limitFormBody(16 * 1024), signedIn("page"), async (c) => {
    const ctx = serviceContext(c);
    mayChange(ctx, "advisories");
    const id = idOf(c);
    const note = action === "withdraw" ? String((await body(c)).revision_note ?? "").trim() : "";
    try {
      await updateAdvisory(ctx, id, {
        input: action === "publish" ? { state: "published" } : { state: "withdrawn", ...(note && { revision_note: note }) },
        vulnIds: undefined,
      });
    } catch (err) {
      const problems = problemsOf(err);
      if (!problems) throw err;
      return page(c, confirmPage(await whoOf(c), await getAdvisory(ctx, id), action, problems, note), 422);
    }
    return c.redirect(`/console/advisories/${id}`, 303);
  });
}

consoleAdvisoriesRouter.get(`${EDITOR}/preview/:format{csaf|osv|cve}`, signedIn("page"), async (c) => {
  const format = c.req.param("format") as AdvisoryRendering;
  if (!ADVISORY_RENDERINGS.includes(format)) throw new NotFound("advisory", "No such rendering.");
  const { advisory, document } = await previewAdvisory(serviceContext(c), idOf(c));
  const links: AdvisoryLinks = advisoryLinks(c.env.PUBLIC_ORIGIN, advisory.id);
  const json = JSON.stringify(await renderAdvisory(document, format, links, c.env.SERVICE_NAME), null, 2);
  return page(c, previewPage(await whoOf(c), advisory, format, json));
});

function valuesOfNothing(): AdvisoryFormValues {
  return {
    title: "",
    summary: "",
    description: "",
    remediation: "",
    references: "",
    cve_id: "",
    cvss_vector: "",
    cwe_ids: "",
    credits: "",
    vulns: "",
    products: [{ ...EMPTY_PRODUCT }],
    revision_note: "",
  };
}

/**
 * Runs a form's change with the reports it names: the advisory's id when it was made, or the
 * problems by field (the API's schema's, or the service's refusal of a member).
 */
async function submitted(
  ctx: ServiceContext,
  values: AdvisoryFormValues,
  change: (reports: NamedReport[]) => Promise<string | FormProblems>,
): Promise<string | FormProblems> {
  try {
    const reports = await reportsByShortcode(ctx, shortcodesOf(values));
    return await change(reports);
  } catch (err) {
    const problems = problemsOf(err);
    if (problems) return problems;
    if (err instanceof DomainError && err.kind === "conflict") return { form: [err.message] };
    throw err;
  }
}

async function editor(
  c: Context<AppEnv>,
  view: { advisory?: AdvisoryRecord; reports?: Map<string, NamedReport>; values: AdvisoryFormValues; problems: FormProblems },
  status: 200 | 422 = 200,
): Promise<Response> {
  const who: Who = await whoOf(c);
  const reports = view.reports ?? (view.advisory ? await namedReports(serviceContext(c), [view.advisory]) : new Map());
  return page(c, advisoryEditorPage({ who, advisory: view.advisory, reports, values: view.values, problems: view.problems }), status);
}
