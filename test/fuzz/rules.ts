import { AUTHENTICATED, template } from "../helpers/endpoints";
import type { FuzzCase } from "./cases";
import { substitute, type Answer, type KeyKind } from "./harness";
import { namedIn, SHARED, type Owner, type Pool } from "./pool";

/*
 * What the fuzzer knows of tenancy and operator powers, as rules on a request and the key that sends
 * it: an organization key sees and names only its own organization's records, and an operator reads
 * everything but writes only organizations, keys, directories, listings, and the policies, assets,
 * briefs and listing items of unclaimed organizations.
 */

const ownedIn = (text: string) => namedIn(text).filter((n) => !SHARED.has(n.type));
const pathOwners = (c: FuzzCase) => new Set(ownedIn(c.pathValues.join(" ")).map((n) => n.owner));

const WRITE = new Set(["POST", "PATCH", "DELETE"]);
// The writes an operator may make for unclaimed organizations only, and those it may not make at all (vulns,
// webhooks, contacts, members, advisories), as the endpoint table says of each: "METHOD /template".
const operatorMay = (may: "unclaimed" | "never") => new Set(AUTHENTICATED.filter((e) => e.operator === may).map(template));
const UNCLAIMED_ONLY = operatorMay("unclaimed");
const NEVER_BY_OPERATOR = operatorMay("never");

/** Why this request must fail with this key, beyond what is wrong with the request itself. */
export function keyMustFail(c: FuzzCase, key: KeyKind, pool: Pool, operatorOnly: Set<string>): string[] {
  if (key === "literal" || c.method !== c.op.method || c.op.public) return [];
  // The fuzzer sends API keys, which the reporter's routes never take (401), whatever else is wrong.
  if (c.op.reporter) return ["an API key on a route that takes the reporter's token"];
  const named = namedIn(`${c.pathValues.join(" ")} ${c.body?.text ?? ""}`).filter((n) => !SHARED.has(n.type));
  const owners = new Set(named.map((n) => n.owner));
  const out: string[] = [];
  if (key === "org") {
    if (operatorOnly.has(c.op.label)) out.push("operator-only operation with an organization key");
    if (owners.has("B")) out.push("names another organization's record");
  }
  const write = WRITE.has(c.method);
  if (write && owners.size > 1) out.push("names two organizations' records in one write");
  if (pathOwners(c).size > 1) out.push("the path names two organizations' records");
  if (key === "operator" && write) {
    if (NEVER_BY_OPERATOR.has(c.op.label)) out.push("operator write to vulns, webhooks, contacts, members or advisories");
    const target = named.find((n) => n.type !== "organization")?.owner ?? named.find((n) => n.type === "organization")?.owner;
    if (UNCLAIMED_ONLY.has(c.op.label) && target && pool.claimed[target as Owner])
      out.push("operator write to a claimed organization's records");
  }
  return out;
}

/**
 * The statuses a request with a bad path may get: a record the key may not see answers as one that
 * does not exist (404), unless the key may not make this kind of request at all (403).
 */
export function expectedStatuses(c: FuzzCase, key: KeyKind, operatorOnly: Set<string>): number[] | undefined {
  // Only where nothing else is wrong with the request: a bad body or query may rightly come first.
  if (c.focus !== "path" || c.op.body || c.op.upload || c.op.requiredQuery || key === "literal" || c.method !== c.op.method)
    return undefined;
  // An API key never reaches a reporter route's records: the token is checked first.
  if (c.op.reporter) return [401];
  if (!c.mustFail.every((why) => why.startsWith("the path names no"))) return undefined;
  if (key === "org" && operatorOnly.has(c.op.label)) return undefined;
  // A public read shows any organization's published record to anyone: another's is no 404 there.
  const foreign = key === "org" && !c.op.public && pathOwners(c).has("B");
  const unknown = c.mustFail.length > 0;
  if (!foreign && !unknown && pathOwners(c).size < 2) return undefined;
  const restricted = key === "operator" && WRITE.has(c.method) && (NEVER_BY_OPERATOR.has(c.op.label) || UNCLAIMED_ONLY.has(c.op.label));
  return restricted ? [403, 404] : [404];
}

/** Records of the other organization that an organization key's answer shows, though the request never named them. */
export function leaks(c: FuzzCase, key: KeyKind, answer: Answer, pool: Pool): string[] {
  // Directories and public reads show every organization listed in them, by design.
  if (key !== "org" || c.op.public || c.op.template.startsWith("/v1/directories")) return [];
  const sent = substitute(`${c.pathValues.join(" ")} ${c.query} ${c.body?.text ?? ""}`, pool);
  return pool
    .recordsOf("B")
    .filter(([, id]) => answer.text.includes(id) && !sent.includes(id))
    .map(([type]) => type);
}
