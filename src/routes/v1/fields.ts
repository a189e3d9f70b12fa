import { Out, Uuid } from "../../http/openapi/documents";
import { z } from "@hono/zod-openapi";
import { ASSET_KINDS, checkAssetValue } from "../../lib/asset-values";
import { LIMITS } from "../../lib/limits";
import { CVSS_VECTOR_INPUT_PATTERN, rateCvss } from "../../lib/cvss";
import { SINGLE_LINE_PATTERN, SINGLE_LINE_RULE } from "../../lib/text";
import { HTTP_URL_PATTERN, HTTPS_URL_PATTERN, isWebUrl, WEB_URL_RULE } from "../../lib/urls";

// Field schemas shared by the request documents of several resources (the limits on names, descriptions and scopes).

/**
 * Text of one line, the start of every single-line member (titles, names, short descriptions,
 * references, versions): no control character, line break or bidirectional override (src/lib/text.ts).
 * Checked on the text as sent, before any trim, and given in the document as the member's pattern.
 */
export const SingleLine = z.string().regex(SINGLE_LINE_PATTERN, SINGLE_LINE_RULE);

export const Name = SingleLine.trim().min(1, "must not be empty").max(LIMITS.nameLength, `must be at most ${LIMITS.nameLength} characters`);
export const ShortDescription = SingleLine.max(
  LIMITS.shortDescriptionLength,
  `must be at most ${LIMITS.shortDescriptionLength} characters`,
);

/** A web address as RFC 3986 writes one (src/lib/urls.ts): what the API publishes must read as a URI everywhere. */
export function webUrl(schemes: "http" | "https" = "http") {
  const rule = `must be an ${schemes === "https" ? "https" : "http or https"} URL, ${WEB_URL_RULE}`;
  return (
    z
      .string()
      .max(LIMITS.urlLength, `must be at most ${LIMITS.urlLength} characters`)
      // The grammar first (the document's pattern), then the parse; one problem is named once.
      .regex(schemes === "https" ? HTTPS_URL_PATTERN : HTTP_URL_PATTERN, { message: rule, abort: true })
      .refine((v) => isWebUrl(v, schemes), rule)
      .openapi({ format: "uri" })
  );
}
export const HttpUrl = webUrl();

/**
 * RFC 3339 with any offset in; the same instant out in UTC with milliseconds. Timestamps are compared
 * as text, so the instant must fall in years 0001..9999: beyond, toISOString writes a six-digit year
 * ("+010000-...") that would sort before today and publish a record meant for the far future.
 */
export const DateTimeInput = z.iso
  .datetime({ offset: true, message: "must be an RFC 3339 date-time, e.g. 2026-11-21T09:30:00Z", abort: true })
  // Nine fractional digits and an offset at most: 2026-11-21T09:30:00.123456789+05:30.
  .max(35, "must be at most 35 characters")
  // overwrite, not transform: the schema stays a string, so the document types it (and its nullable
  // variants) without an override that would hide `nullable`.
  .overwrite((v) => new Date(v).toISOString())
  .refine((v) => /^\d{4}-/.test(v) && !v.startsWith("0000"), "must be between the years 0001 and 9999 in UTC");

// A value that fails a check whose message another check repeats stops there (abort), so a member is
// named once per problem: "red" is both the wrong length and the wrong form, one error.
export const Color = z
  .string()
  .length(7, { message: "must be a color like #1a2b3c", abort: true })
  .regex(/^#[0-9a-fA-F]{6}$/, "must be a color like #1a2b3c");

export const AssetKind = z.enum(ASSET_KINDS);

/** An asset's value as sent (checked against its kind after): the length is declared here so the document says it. */
export const AssetValue = SingleLine.max(LIMITS.assetValueLength, `must be at most ${LIMITS.assetValueLength} characters`);

/** A related resource's id: a UUID (an id that names nothing is refused like any other). */
export const RelatedId = Uuid;

/** A value checked against its kind and stored in canonical form (lowercased host, normalized URL). */
export function checkedKindValue<T extends { kind: (typeof ASSET_KINDS)[number]; value: string }>(v: T, ctx: z.RefinementCtx): T {
  const checked = checkAssetValue(v.kind, v.value);
  if (!checked.ok) {
    ctx.addIssue({ code: "custom", message: checked.reason, path: ["value"] });
    return z.NEVER;
  }
  return { ...v, value: checked.value };
}

export const ScopeAssetInput = z
  .strictObject({
    // Optional: an entry sent back as read keeps its id (read-modify-write); new entries get one.
    id: z.uuid("must be the id of an entry of this array").optional(),
    kind: AssetKind,
    value: AssetValue,
    short_description: ShortDescription.nullable().optional(),
  })
  .transform(checkedKindValue)
  .openapi("ScopeAssetInput");

export const ScopeAssetsInput = z.array(ScopeAssetInput).max(LIMITS.scopeAssets, `at most ${LIMITS.scopeAssets} scope entries`);

export const ScopeAssetSchema = z
  .object({
    id: Uuid,
    kind: z.string().openapi({ enum: [...ASSET_KINDS] }),
    value: z.string().max(LIMITS.assetValueLength),
    short_description: Out.shortDescription.nullable(),
  })
  .openapi("ScopeAsset");

export function relationshipInput(type: string) {
  return z.strictObject({ data: z.strictObject({ type: z.literal(type), id: RelatedId }) });
}

export function nullableRelationshipInput(type: string) {
  return z.strictObject({ data: z.strictObject({ type: z.literal(type), id: RelatedId }).nullable() });
}

export function toManyInput(type: string) {
  return z.strictObject({ data: z.array(z.strictObject({ type: z.literal(type), id: RelatedId })).max(LIMITS.relatedPerRelationship) });
}

/** A CVSS 3.0, 3.1 or 4.0 vector in, rated (its version and score) out. */
export const CvssVector = z
  .string()
  .max(LIMITS.cvssVectorLength, `must be at most ${LIMITS.cvssVectorLength} characters`)
  .transform((v, ctx) => {
    const rated = rateCvss(v);
    if (rated.ok) return rated.rating;
    ctx.addIssue({ code: "custom", message: rated.reason });
    return z.NEVER;
  })
  .openapi({
    type: "string",
    maxLength: LIMITS.cvssVectorLength,
    // The form every vector takes; which metrics and values a version knows is checked beyond it.
    pattern: CVSS_VECTOR_INPUT_PATTERN,
    example: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
    description: "A CVSS 3.0, 3.1 or 4.0 vector with every base metric.",
  });
export const CweIds = z
  .array(
    z
      .string()
      .max(10, { message: "must be a CWE id such as CWE-79", abort: true })
      // Any case in ("cwe-79"), upper case out; no regex flag, so the pattern reads the same in OpenAPI.
      .regex(/^[Cc][Ww][Ee]-[1-9]\d{0,5}$/, "must be a CWE id such as CWE-79")
      .transform((v) => v.toUpperCase()),
  )
  .max(LIMITS.cweIdsPerVuln, `at most ${LIMITS.cweIdsPerVuln} CWE ids`);
