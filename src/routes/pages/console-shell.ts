import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../../http/app-env";
import { asApiError } from "../../http/errors";
import { formToken } from "../../http/session";
import { type ConsoleSection, consoleDocument, type Who } from "../../templates/console-layout";
import type { Html } from "../../templates/layout";
import { sessionOf } from "./console-door";
import { formText } from "./form";
import { page } from "./shared";

// What every signed-in console page does: who is signed in (for the layout and the forms' token), and
// the page itself in the console's layout. Pages call the same services the API calls, with the
// member as the caller (serviceContext), so a role's powers are the services' and nowhere else.

/** The signed-in member, as the layout shows them. Reads nothing: the session door already did. */
export async function whoOf(c: Context<AppEnv>): Promise<Who> {
  const session = sessionOf(c);
  const caller = c.var.caller;
  return {
    name: caller.name === session.email ? null : (caller.name ?? null),
    email: session.email,
    memberId: caller.member!.id,
    organization: session.organizationName,
    role: caller.member!.role,
    formToken: await formToken(session),
  };
}

/** A console page in the layout: a section of the navigation, a title, the content. */
export function consolePage(
  c: Context<AppEnv>,
  who: Who,
  section: ConsoleSection,
  title: string,
  main: Html | Html[],
  status: ContentfulStatusCode = 200,
): Response {
  return page(c, consoleDocument(who, section, title, main), status);
}

/** A service's refusal as a page says it (status and words), or undefined for anything else (rethrow it). */
export function refusalOf(
  err: unknown,
): { status: ContentfulStatusCode; message: string; problems: { pointer?: string; detail: string }[] } | undefined {
  const known = asApiError(err);
  if (!known || known.status >= 500) return undefined;
  return {
    status: known.status as ContentfulStatusCode,
    message: known.message,
    problems: known.problems.map((p) => ({
      pointer: p.source && "pointer" in p.source ? p.source.pointer : undefined,
      detail: p.detail ?? known.message,
    })),
  };
}

/**
 * A console form's fields: `field` is one field's text (a textarea's CRLF line breaks as LF, as the API
 * keeps text), `all` every value of a repeated field (ticked boxes). Strings only: no console form sends files.
 */
export async function formOf(c: Context): Promise<{ field: (name: string) => string; all: (name: string) => string[] }> {
  const body = await c.req.parseBody({ all: true });
  const values = (name: string) => {
    const v = body[name];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
  };
  return { field: (name) => formText({ [name]: values(name)[0] }, name), all: values };
}
