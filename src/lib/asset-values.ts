import { LIMITS } from "./limits";
export const ASSET_KINDS = [
  "domain",
  "wildcard_domain",
  "url",
  "ip_address",
  "cidr",
  "ios_app",
  "android_app",
  "source_code",
  "executable",
  "hardware",
  "other",
] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

export type Checked = { ok: true; value: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A DNS hostname of at least two labels with an alphabetic (or punycode) top-level label.
 * ASCII only, checked before lowercasing: some characters (the Kelvin sign) lowercase into ASCII
 * letters, and internationalized names must come in their punycode form.
 */
export function normalizeHostname(input: string): string | null {
  if (!/^[\x21-\x7e]+$/.test(input)) return null;
  const host = input.toLowerCase().replace(/\.$/, "");
  if (host.length === 0 || host.length > 253) return null;
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  const tld = labels.at(-1)!;
  return /^([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld) ? host : null;
}

export function isIPv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

export function isIPv6(value: string): boolean {
  if (!value.includes(":") || !/^[0-9a-fA-F:.]+$/.test(value)) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

function httpUrl(value: string): string | null {
  try {
    const url = new URL(value.trim());
    if ((url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname) return null;
    return url.toString();
  } catch {
    return null;
  }
}

/**
 * Checks an asset value against its kind and returns its canonical form (lowercased hosts,
 * normalized URLs), so that uniqueness per (organization, kind, value) means what a person expects.
 */
export function checkAssetValue(kind: AssetKind, raw: string): Checked {
  const value = raw.trim();
  if (value.length === 0) return { ok: false, reason: "value must not be empty." };
  if (value.length > LIMITS.assetValueLength) return { ok: false, reason: `value must be at most ${LIMITS.assetValueLength} characters.` };
  if (CONTROL.test(value)) return { ok: false, reason: "value must not contain control characters." };
  const fail = (reason: string): Checked => ({ ok: false, reason });
  switch (kind) {
    case "domain": {
      const host = normalizeHostname(value);
      return host ? { ok: true, value: host } : fail("value must be a domain name such as example.com.");
    }
    case "wildcard_domain": {
      const host = value.startsWith("*.") ? normalizeHostname(value.slice(2)) : null;
      return host ? { ok: true, value: `*.${host}` } : fail("value must be a wildcard domain such as *.example.com.");
    }
    case "url":
    case "source_code": {
      const url = httpUrl(value);
      return url ? { ok: true, value: url } : fail("value must be an http or https URL.");
    }
    case "ip_address":
      if (isIPv4(value)) return { ok: true, value };
      if (isIPv6(value)) return { ok: true, value: new URL(`http://[${value}]/`).hostname.slice(1, -1) };
      return fail("value must be an IPv4 or IPv6 address.");
    case "cidr": {
      const [ip = "", prefix, extra] = value.split("/");
      if (extra !== undefined || prefix === undefined || !/^\d{1,3}$/.test(prefix))
        return fail("value must be a CIDR block such as 192.0.2.0/24.");
      const bits = Number(prefix);
      if (isIPv4(ip) && bits <= 32) return { ok: true, value: `${ip}/${bits}` };
      if (isIPv6(ip) && bits <= 128) return { ok: true, value: `${new URL(`http://[${ip}]/`).hostname.slice(1, -1)}/${bits}` };
      return fail("value must be a CIDR block such as 192.0.2.0/24.");
    }
    case "ios_app":
      return /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+|(id)?\d{6,12})$/.test(value) || /^https:\/\/apps\.apple\.com\//.test(value)
        ? { ok: true, value }
        : fail("value must be a bundle id (com.example.app), an App Store id or an apps.apple.com URL.");
    case "android_app":
      return /^[a-zA-Z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/.test(value) || /^https:\/\/play\.google\.com\//.test(value)
        ? { ok: true, value }
        : fail("value must be a package name (com.example.app) or a play.google.com URL.");
    case "executable":
    case "hardware":
    case "other":
      return value.length <= 500 ? { ok: true, value } : fail("value must be at most 500 characters for this kind.");
  }
}
