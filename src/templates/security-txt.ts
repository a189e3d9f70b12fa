import type { SecurityTxtSource } from "../services/organization-files";

// RFC 9116's security.txt, made from an organization's published policy. Every URI is absolute, on the
// deployment's public origin.

export const SECURITY_TXT_TYPE = "text/plain; charset=utf-8";
const DAY_MS = 86_400_000;
/** How far ahead Expires is set: under the RFC's "at most a year", counted from the day it is made. */
const EXPIRES_DAYS = 364;

/** The point of contact as a URI security.txt takes: an e-mail address as mailto:, a web address only as https:. */
export function contactUri(pointOfContact: string | null): string | null {
  const value = pointOfContact?.trim();
  if (!value) return null;
  if (/^[^\s@<>()"',;:]+@[a-z0-9.-]+\.[a-z]{2,}$/i.test(value)) return `mailto:${value}`;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && !url.username && !url.password ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The file. `Expires` is a whole day 364 days after the day it is made: each time the file is made
 * again (every change of the policy evicts it, and a cached copy lives a minute) it moves forward.
 */
export function securityTxt(source: SecurityTxtSource, origin: string, canonical: string, now: Date): string {
  const { policy, organization, briefShortcode } = source;
  const expires = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + EXPIRES_DAYS * DAY_MS).toISOString().replace(".000Z", "Z");
  const policyPage = `${origin}/p/${policy.shortcode}`;
  const contacts = [
    contactUri(policy.pointOfContact),
    contactUri(policy.contactUrl),
    // Where to report: the program's form, or the policy itself when no program is open.
    briefShortcode ? `${origin}/b/${briefShortcode}` : policyPage,
  ];
  const lines = [
    `# How to report a security vulnerability to this organization, made from its published disclosure policy.`,
    ...[...new Set(contacts.filter((c): c is string => c !== null))].map((c) => `Contact: ${c}`),
    `Expires: ${expires}`,
    `Policy: ${policyPage}`,
    ...(policy.hallOfFame ? [`Acknowledgments: ${origin}/h/${policy.shortcode}`] : []),
    "Preferred-Languages: en",
    `Canonical: ${canonical}`,
    `CSAF: ${origin}/o/${encodeURIComponent(organization.slug)}/csaf/provider-metadata.json`,
  ];
  return `${lines.join("\n")}\n`;
}
