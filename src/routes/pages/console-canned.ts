import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { DomainError } from "../../lib/domain-errors";
import { LIMITS } from "../../lib/limits";
import {
  createCannedResponse,
  deleteCannedResponse,
  getCannedResponse,
  listCannedResponses,
  mayChangeCanned,
  updateCannedResponse,
} from "../../services/canned-responses";
import {
  CANNED_PATH,
  type CannedField,
  type CannedForm,
  cannedEditPage,
  cannedListPage,
  type FieldProblems,
} from "../../templates/console-canned";
import type { Who } from "../../templates/console-layout";
import { CannedResponseAttributes } from "../v1/canned-responses/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { consolePage, formOf, whoOf } from "./console-shell";
import { html } from "hono/html";
import { limitFormBody, page } from "./shared";

// Settings > Canned responses in the console: the list, the add form, a response's edit and delete
// forms. Each form is checked by the API's own schema (CannedResponseAttributes) and written by the
// API's own service, with the signed-in member as the caller: a viewer's POST is the service's refusal.

export const consoleCannedRouter = new Hono<AppEnv>();

// Every character of the text may take 12 bytes once percent-encoded (4 in UTF-8, each %XX).
const formBody = limitFormBody(LIMITS.cannedResponseBodyLength * 12 + LIMITS.nameLength * 12 + 4096);

const FIELDS: readonly CannedField[] = ["name", "body", "visibility"];

/** The form as typed (line breaks as the API keeps them), whatever it holds; refuses first a member who may not change them. */
async function typedForm(c: Context<AppEnv>): Promise<CannedForm> {
  mayChangeCanned(serviceContext(c));
  const { field } = await formOf(c);
  return { name: field("name"), body: field("body"), visibility: field("visibility") };
}

/** The form checked as the API checks a canned response: its members, or each field's problem. */
function checked(form: CannedForm) {
  const parsed = CannedResponseAttributes.safeParse(form);
  if (parsed.success) return { input: parsed.data, problems: null };
  const problems: FieldProblems = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as CannedField;
    if (FIELDS.includes(field) && !problems[field]) problems[field] = field === "visibility" ? "choose who can read it" : issue.message;
  }
  return { input: null, problems };
}

/** A service's refusal of a field (the name taken) as that field's problem; any other refusal is thrown on. */
function fieldProblem(err: unknown): FieldProblems | null {
  if (!(err instanceof DomainError) || err.kind !== "invalid") return null;
  const member = err.problems[0]?.source && "member" in err.problems[0].source ? err.problems[0].source.member : undefined;
  const field = member && "attribute" in member ? (member.attribute as CannedField) : undefined;
  return field && FIELDS.includes(field) ? { [field]: err.problems[0]!.detail } : null;
}

/** A refusal that is no field's (another role's change, a response gone), as a console page. */
function refusal(c: Context<AppEnv>, who: Who, err: unknown): Response {
  if (err instanceof DomainError && err.kind === "insufficient_scope")
    return consolePage(
      c,
      who,
      "settings",
      "Not allowed",
      html`<h1>Not allowed</h1><p class="lead">Only owners change canned responses; your role is ${who.role}. Nothing was changed.</p>
<p><a href="${CANNED_PATH}">Back to the canned responses</a></p>`,
      403,
    );
  if (err instanceof DomainError && err.kind === "not_found")
    return consolePage(
      c,
      who,
      "settings",
      "Not found",
      html`<h1>Not found</h1><p class="lead">No canned response of your organization is here: it may have been deleted.</p>
<p><a href="${CANNED_PATH}">Back to the canned responses</a></p>`,
      404,
    );
  throw err;
}

const listOf = (c: Context<AppEnv>) =>
  listCannedResponses(serviceContext(c), { page: { number: 1, size: LIMITS.pageSize }, sort: "created_at" });

consoleCannedRouter.get(CANNED_PATH, signedIn("page"), async (c) => {
  const who = await whoOf(c);
  return page(c, cannedListPage({ who, ...(await listOf(c)) }));
});

consoleCannedRouter.post(CANNED_PATH, formBody, signedIn("page"), async (c) => {
  const who = await whoOf(c);
  let form: CannedForm;
  try {
    form = await typedForm(c);
  } catch (err) {
    return refusal(c, who, err);
  }
  const { input, problems } = checked(form);
  try {
    if (input) {
      await createCannedResponse(serviceContext(c), input, undefined);
      return c.redirect(CANNED_PATH, 303);
    }
  } catch (err) {
    const problem = fieldProblem(err);
    if (!problem) return refusal(c, who, err);
    return page(c, cannedListPage({ who, ...(await listOf(c)), form, problems: problem }), 422);
  }
  return page(c, cannedListPage({ who, ...(await listOf(c)), form, problems: problems! }), 422);
});

consoleCannedRouter.get(`${CANNED_PATH}/:id`, signedIn("page"), async (c) => {
  const who = await whoOf(c);
  try {
    return page(c, cannedEditPage({ who, row: await getCannedResponse(serviceContext(c), c.req.param("id")) }));
  } catch (err) {
    return refusal(c, who, err);
  }
});

consoleCannedRouter.post(`${CANNED_PATH}/:id`, formBody, signedIn("page"), async (c) => {
  const who = await whoOf(c);
  const id = c.req.param("id");
  let form: CannedForm;
  try {
    form = await typedForm(c);
  } catch (err) {
    return refusal(c, who, err);
  }
  const { input, problems } = checked(form);
  try {
    if (input) {
      await updateCannedResponse(serviceContext(c), id, input);
      return c.redirect(CANNED_PATH, 303);
    }
    // Refused as typed: the page shows the response as stored beside the form as sent.
    const row = await getCannedResponse(serviceContext(c), id);
    return page(c, cannedEditPage({ who, row, form, problems: problems! }), 422);
  } catch (err) {
    const problem = fieldProblem(err);
    if (!problem) return refusal(c, who, err);
    const row = await getCannedResponse(serviceContext(c), id);
    return page(c, cannedEditPage({ who, row, form, problems: problem }), 422);
  }
});

consoleCannedRouter.post(`${CANNED_PATH}/:id/delete`, signedIn("page"), async (c) => {
  const who = await whoOf(c);
  try {
    await deleteCannedResponse(serviceContext(c), c.req.param("id"));
    return c.redirect(CANNED_PATH, 303);
  } catch (err) {
    return refusal(c, who, err);
  }
});
