import type { z } from "@hono/zod-openapi";
import type { CreditInput } from "../../db/schema";
import type { AffectedProduct, AffectedVersion } from "../../lib/advisory";
import { DomainError, type Member } from "../../lib/domain-errors";
import { LIMITS } from "../../lib/limits";
import type { AdvisoryRecord } from "../../services/advisories";
import type { NamedReport } from "../../services/advisory-previews";
import { type AdvisoryFormValues, EMPTY_PRODUCT, type FormProblems, type ProductRow } from "../../templates/console-advisory-editor";
import { CreateAdvisoryInput, UpdateAdvisoryInput } from "../v1/advisories/schema";
import { formText } from "./form";

// The console's advisory form, to and from what the API takes: the fields become the API's request
// document, checked by the API's own schemas (CreateAdvisoryInput, UpdateAdvisoryInput), so the form
// holds no rule of its own; only how a member is typed (a product's versions a line each, credits as
// "type: name") is the form's.

type Body = Record<string, string | File | (string | File)[]>;
/** A field's text, a textarea's CRLF as LF (as the API keeps text). */
const str = (v: Body[string] | undefined): string => formText({ v }, "v");

/** The values as typed, and which row button was pressed (a row added or removed: shown again, nothing stored). */
export function formOf(body: Body): { values: AdvisoryFormValues; rowsChanged: boolean } {
  const products: ProductRow[] = [];
  for (let i = 0; i < LIMITS.productsPerAdvisory && [`vendor_${i}`, `product_${i}`, `versions_${i}`].some((n) => n in body); i++)
    products.push({
      vendor: str(body[`vendor_${i}`]),
      product: str(body[`product_${i}`]),
      purl: str(body[`purl_${i}`]),
      versions: str(body[`versions_${i}`]),
    });
  let rowsChanged = false;
  const remove = Number.parseInt(str(body.remove_product), 10);
  if (Number.isInteger(remove) && remove >= 0 && remove < products.length) {
    products.splice(remove, 1);
    rowsChanged = true;
  }
  if (body.add_product !== undefined && products.length < LIMITS.productsPerAdvisory) {
    products.push({ ...EMPTY_PRODUCT });
    rowsChanged = true;
  }
  const field = (name: keyof AdvisoryFormValues) => str(body[name]);
  return {
    rowsChanged,
    values: {
      title: field("title"),
      summary: field("summary"),
      description: field("description"),
      remediation: field("remediation"),
      references: field("references"),
      cve_id: field("cve_id"),
      cvss_vector: field("cvss_vector"),
      cwe_ids: field("cwe_ids"),
      credits: field("credits"),
      vulns: field("vulns"),
      products: products.length ? products : [{ ...EMPTY_PRODUCT }],
      revision_note: field("revision_note"),
    },
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

function versionLine(line: string): AffectedVersion | Record<string, unknown> {
  const [status = "", ...rest] = line.split(/\s+/);
  const value = rest.join(" ");
  const range = /^from\s+(.+?)(?:\s+to\s+(.+))?$/i.exec(value);
  if (range) return { range: { introduced: range[1]!, fixed: range[2] ?? null }, status: status.toLowerCase() };
  return { version: value, status: status.toLowerCase() };
}

function versionText(v: AffectedVersion): string {
  if ("version" in v) return `${v.status} ${v.version}`;
  return `${v.status} from ${v.range.introduced}${v.range.fixed ? ` to ${v.range.fixed}` : ""}`;
}

/** A credit line: "type: name", or "type: reporter of SHORTCODE" for one of `reports`. */
function creditOf(line: string, reports: readonly NamedReport[]): Record<string, unknown> {
  const at = line.indexOf(":");
  const type = (at < 0 ? "" : line.slice(0, at)).trim().toLowerCase().replace(/\s+/g, "_");
  const name = (at < 0 ? line : line.slice(at + 1)).trim();
  const reporter = /^reporter of\s+(\S+)$/i.exec(name);
  if (!reporter) return { name, type };
  const code = reporter[1]!.toUpperCase();
  // A report the advisory does not name is refused by the service (credits/reporter_of), as the API's.
  return { reporter_of: reports.find((r) => r.shortcode === code)?.id ?? "00000000-0000-4000-8000-000000000000", type };
}

/** The shortcodes the form names, as typed. */
export const shortcodesOf = (v: AdvisoryFormValues): string[] => words(v.vulns);

/**
 * The API's request document for the form, checked by its schema: the attributes and the vulns'
 * ids, or the problems by field. A create leaves out what is empty and defaults (CVSS, CWE).
 */
export function requestOf(
  v: AdvisoryFormValues,
  reports: readonly NamedReport[],
  mode: { create: true } | { create: false; id: string; revising: boolean },
):
  | { ok: true; attributes: z.infer<typeof CreateAdvisoryInput>["data"]["attributes"]; vulnIds: string[] }
  | { ok: false; problems: FormProblems } {
  const orNull = (s: string) => (s.trim() ? s.trim() : null);
  const attributes: Record<string, unknown> = {
    title: v.title.trim(),
    summary: orNull(v.summary),
    description: orNull(v.description),
    remediation: orNull(v.remediation),
    references: lines(v.references),
    cve_id: orNull(v.cve_id),
    affected: v.products
      .filter((p) => p.vendor.trim() || p.product.trim() || p.purl.trim() || p.versions.trim())
      .map((p) => ({
        vendor: p.vendor.trim(),
        product: p.product.trim(),
        purl: orNull(p.purl),
        versions: lines(p.versions).map(versionLine),
      })),
    credits: lines(v.credits).map((l) => creditOf(l, reports)),
  };
  const cvss = orNull(v.cvss_vector);
  const cwes = words(v.cwe_ids).map((w) => w.toUpperCase());
  if (cvss || !mode.create) attributes.cvss_vector = cvss;
  if (cwes.length || !mode.create) attributes.cwe_ids = cwes;
  if (!mode.create && mode.revising) attributes.revision_note = v.revision_note.trim();
  const relationships = { vulns: { data: reports.map((r) => ({ type: "vuln", id: r.id })) } };
  const parsed = mode.create
    ? CreateAdvisoryInput.safeParse({ data: { type: "advisory", attributes, relationships } })
    : UpdateAdvisoryInput.safeParse({ data: { type: "advisory", id: mode.id, attributes, relationships } });
  if (!parsed.success) {
    const problems: FormProblems = {};
    for (const issue of parsed.error.issues) {
      const [, section, name, ...rest] = issue.path.map(String);
      const at = section === "relationships" ? fieldOf({ relationship: "vulns" }) : fieldOf({ attribute: [name, ...rest].join(".") });
      (problems[at.field] ??= []).push(`${at.line ? `Line ${at.line}: ` : ""}${issue.message}.`.replace(/\.\.$/, "."));
    }
    return { ok: false, problems };
  }
  return { ok: true, attributes: parsed.data.data.attributes as never, vulnIds: reports.map((r) => r.id) };
}

/** The form's field (and the line in it) a member of the API's document is typed in. */
export function fieldOf(member: Member): { field: string; line?: number } {
  if ("relationship" in member) return { field: "vulns" };
  if (!("attribute" in member)) return { field: "form" };
  const [name = "", index, sub, entry] = member.attribute.split(".");
  const n = index === undefined ? undefined : Number(index);
  if (name === "affected") {
    if (n === undefined) return { field: "affected" };
    if (sub === "vendor" || sub === "product" || sub === "purl") return { field: `${sub}_${n}` };
    return { field: `versions_${n}`, ...(entry !== undefined && { line: Number(entry) + 1 }) };
  }
  if (name === "references" || name === "credits") return { field: name, ...(n !== undefined && { line: n + 1 }) };
  if (name in LABELLED) return { field: name };
  return { field: "form" };
}
const LABELLED = { title: 1, summary: 1, description: 1, remediation: 1, cve_id: 1, cvss_vector: 1, cwe_ids: 1, revision_note: 1 };

/** A service's refusal of the form's members, by field; null for a refusal of another kind. */
export function problemsOf(err: unknown): FormProblems | null {
  if (!(err instanceof DomainError) || err.kind !== "invalid") return null;
  const problems: FormProblems = {};
  for (const p of err.problems) {
    const at = p.source && "member" in p.source ? fieldOf(p.source.member) : { field: "form" };
    (problems[at.field] ??= []).push(`${at.line ? `Line ${at.line}: ` : ""}${p.detail.replace("{member}", "this")}`);
  }
  return problems;
}

/** An advisory as the form shows it. */
export function valuesOf(a: AdvisoryRecord, reports: readonly NamedReport[]): AdvisoryFormValues {
  const code = (id: string) => reports.find((r) => r.id === id)?.shortcode ?? id;
  return {
    title: a.title,
    summary: a.summary ?? "",
    description: a.description ?? "",
    remediation: a.remediation ?? "",
    references: a.references.join("\n"),
    cve_id: a.cveId ?? "",
    cvss_vector: a.cvssVector ?? "",
    cwe_ids: a.cweIds.join(" "),
    credits: a.credits
      .map((c: CreditInput) => ("name" in c ? `${c.type}: ${c.name}` : `${c.type}: reporter of ${code(c.reporter_of)}`))
      .join("\n"),
    vulns: a.vulnIds.map(code).join(" "),
    products: a.affected.map((p: AffectedProduct) => ({
      vendor: p.vendor,
      product: p.product,
      purl: p.purl ?? "",
      versions: p.versions.map(versionText).join("\n"),
    })),
    revision_note: "",
  };
}
