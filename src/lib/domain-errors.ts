/**
 * What services (and the layers below them) refuse, in their own words. They raise these and never the
 * API's error type: `src/http/errors.ts` maps each kind to a status, a code and the problem's place in the
 * request, so the rules know nothing of HTTP and a new front door (a page, the queue) reuses them.
 */

/**
 * A member of what the caller sent, named as the rules know it: an attribute (a dotted path into it,
 * "credits.0.reporter_of"), a relationship (the record it names, or with `entry` the n-th of a
 * to-many; `whole` for the relationship itself), or the resource (its id with `id`). Where one request
 * names several resources (a bulk change, a new order), `item` says which. Each front door says it in
 * its own words: the API as a JSON pointer into its document (src/http/errors.ts), a page as a field.
 */
export type Member =
  | { attribute: string; item?: number }
  | { relationship: string; entry?: number; whole?: boolean; item?: number }
  | { resource: true; id?: boolean; item?: number };

/** An attribute of the resource sent (of the `item`-th, in a request naming several). */
export const attribute = (path: string, item?: number): Member => ({ attribute: path, ...(item !== undefined && { item }) });

/** A relationship of the resource sent: the record it names, or the `entry`-th of a to-many. */
export const relationship = (name: string, at: { entry?: number; whole?: boolean; item?: number } = {}): Member => ({
  relationship: name,
  ...at,
});

/** The resource sent, or the `item`-th of several; with `id`, its id. */
export const resource = (at: { id?: boolean; item?: number } = {}): Member => ({ resource: true, ...at });

/** Where in the request a problem is: a member of what was sent, a query parameter or a header. */
export type Source = { member: Member } | { parameter: string } | { header: string };

export interface Problem {
  /** Why, in words; `{member}` in it is replaced by the member's name as the front door says it (its pointer, a field). */
  detail: string;
  source?: Source;
}

export type Refusal =
  | "not_found"
  | "invalid"
  | "unprocessable"
  | "conflict"
  | "forbidden"
  | "insufficient_scope"
  | "too_large"
  | "unavailable"
  | "bad_input"
  | "key_reused"
  | "rate_limited"
  | "intake_paused"
  | "signature_invalid";

/** The base of every refusal: one or more problems of one kind. */
export class DomainError extends Error {
  readonly problems: Problem[];

  constructor(
    readonly kind: Refusal,
    problems: Problem | Problem[],
  ) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list[0]?.detail ?? kind);
    this.problems = list;
  }
}

/**
 * No such record for this caller. `entity` says which record: the vuln and the brief have codes of
 * their own, the rest share one. Another organization's id must read exactly like one that does not exist.
 */
export class NotFound extends DomainError {
  constructor(
    readonly entity: string,
    detail: string,
    /** Where the request named it, when not in its path (a bulk document's member). */
    source?: Source,
  ) {
    super("not_found", { detail, ...(source ? { source } : {}) });
  }
}

/** Members of the request that are invalid: one problem per member, each naming it. */
export class Invalid extends DomainError {
  constructor(problems: Problem | Problem[]) {
    super("invalid", problems);
  }

  static at(member: Member, detail: string): Invalid {
    return new Invalid({ detail, source: { member } });
  }
}

/** A valid document that breaks a rule of the records it touches. */
export class Unprocessable extends DomainError {
  constructor(problems: Problem | Problem[]) {
    super("unprocessable", problems);
  }
}

/** The change lost a race with another one, or depends on something that moved: read again, retry. */
export class Conflict extends DomainError {
  constructor(detail: string, source?: Source) {
    super("conflict", { detail, ...(source ? { source } : {}) });
  }
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  constructor(detail: string) {
    super("forbidden", { detail });
  }
}

/**
 * The caller acts for its organization but lacks the scope the operation needs (a key's scopes, a
 * member's role): `scope` names the one it needs, which the answer says (RFC 6750's insufficient_scope).
 */
export class InsufficientScope extends DomainError {
  constructor(readonly scope: string) {
    super("insufficient_scope", { detail: `This needs the ${scope} scope, which this key (or your role) does not have.` });
  }
}

/** More than a limit allows, in bytes. */
export class TooLarge extends DomainError {
  constructor(detail: string) {
    super("too_large", { detail });
  }
}

/** Storage the change needs is briefly unavailable: worth retrying after `retryAfterSeconds`. */
export class Unavailable extends DomainError {
  constructor(
    detail: string,
    readonly retryAfterSeconds = 5,
  ) {
    super("unavailable", { detail });
  }
}

/** Too many of something from one client in a window: worth retrying after `retryAfterSeconds`. */
export class RateLimited extends DomainError {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", { detail });
  }
}

/** A brief its organization paused: no report is taken until `until`; `note` is the organization's word to reporters. */
export class IntakePaused extends DomainError {
  constructor(
    readonly until: string,
    readonly note: string | null,
    readonly retryAfterSeconds: number,
  ) {
    super("intake_paused", { detail: `This brief takes no reports until ${until}.${note ? ` ${note}` : ""}` });
  }
}

/** A reporter's signature that was sent and does not verify: nothing is stored. */
export class SignatureInvalid extends DomainError {
  constructor(detail: string) {
    super("signature_invalid", { detail, source: { header: "X-Reporter-Signature" } });
  }
}

/** A parameter or header of the request (not its document) is malformed. */
export class BadInput extends DomainError {
  constructor(detail: string, source?: Source) {
    super("bad_input", { detail, ...(source ? { source } : {}) });
  }
}

/** An Idempotency-Key sent again with a different request. */
export class KeyReused extends DomainError {
  constructor(detail: string, source?: Source) {
    super("key_reused", { detail, ...(source ? { source } : {}) });
  }
}

/**
 * A response kept for an Idempotency-Key. Not an error: thrown to end a repeated request early, and
 * answered by the app's error handler with this response, byte for byte.
 */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class IdempotentReplay extends Error {
  constructor(readonly stored: StoredResponse) {
    super("idempotent replay");
  }
}
