// Every limit a client can reach, defined once. The schemas, the error messages, the page templates,
// the OpenAPI text and the rate-limit bindings of wrangler.toml (held to it by a test) read it here;
// a number a client can hit is never written anywhere else.

const MiB = 1024 * 1024;

/** Requests a minute. Windows are fixed and aligned to the minute, like Cloudflare's limiter's. */
export const RATES = {
  /** With one API key. */
  apiKey: 600,
  /** Public reads (briefs, directories, their pages) from one address: */
  publicReads: 300,
  /** of which this many are counted in the isolate's memory before the limiter is asked (ReadBudget). */
  publicReadsInIsolate: 30,
  /** Report submissions from one address, through the API or a brief's page. */
  publicSubmits: 5,
  /** Requests to keyed routes from one address without a valid key or token. */
  unauthenticated: 60,
  /** With one reporter's follow-up token. */
  reporter: 30,
} as const;

/** The rate-limit bindings of wrangler.toml and the `limit` each must be configured with. */
export const RATE_LIMIT_BINDINGS = {
  API_RATE_LIMITER: RATES.apiKey,
  PUBLIC_READ_RATE_LIMITER: RATES.publicReads - RATES.publicReadsInIsolate,
  PUBLIC_SUBMIT_RATE_LIMITER: RATES.publicSubmits,
  UNAUTHENTICATED_RATE_LIMITER: RATES.unauthenticated,
  REPORTER_RATE_LIMITER: RATES.reporter,
} as const;

const COMMENT_LENGTH = 20_000;

/** Sizes and counts. */
export const LIMITS = {
  /** A request body (JSON), in bytes. */
  bodyBytes: 1 * MiB,
  /** One attachment, in bytes. */
  fileBytes: 10 * MiB,
  /** Attachments of one vuln, both sides' together. */
  filesPerVuln: 20,
  /** Bytes of one vuln's attachments together. */
  bytesPerVuln: 50 * MiB,
  /** Files sent with the report form. */
  formFiles: 5,
  /** A vuln's title, in characters. */
  titleLength: 300,
  /** A vuln's description, in characters. */
  descriptionLength: 100_000,
  /** Domains a vuln names. */
  domainsPerVuln: 50,
  /** A comment's body, in characters (an e-mailed reply's too). */
  commentLength: COMMENT_LENGTH,
  /**
   * Characters of an e-mailed reply's body read, line ends included: the longest comment, with room for
   * its line ends and the line that starts the quote. A reply that has not ended within them is too long.
   */
  emailReplyReadLength: COMMENT_LENGTH + 4_000,
  /** A regulatory report's text as filed, in characters, and the authority's reference for it. */
  regulatoryReportLength: 100_000,
  regulatoryReferenceLength: 200,
  /** Error objects listed in one error document (the rest are counted in meta.errors_omitted). */
  errorsListed: 25,
  /** Resources in one page of a list. */
  pageSize: 100,
  /** An asset's value (a host, a URL, an app id...), in characters. */
  assetValueLength: 2048,
  /** A CVSS vector, in characters. */
  cvssVectorLength: 300,
  /** Vulns one PATCH /v1/vulns changes (one D1 batch). */
  vulnsPerBulkUpdate: 100,
  /** A name (an organization's, a policy's, a brief's, a directory's, a key's), in characters. */
  nameLength: 200,
  /** A canned response's body (its text before the placeholders are filled), in characters. */
  cannedResponseBodyLength: 10_000,
  /** A short description, in characters. */
  shortDescriptionLength: 1000,
  /** A policy's full text (Markdown), in characters. */
  policyBodyLength: 100_000,
  /** A URL the API takes (a website, a contact, a webhook's), in characters. */
  urlLength: 2048,
  /** A hostname: DNS's own bound. */
  hostnameLength: 253,
  /** A slug (an organization's, a directory's). */
  slugLength: 64,
  /** In- or out-of-scope entries of one policy or brief. */
  scopeAssets: 500,
  /** Records one to-many relationship names (a policy's assets). */
  relatedPerRelationship: 500,
  /** Tags of one vuln, and the characters of each. */
  tagsPerVuln: 20,
  tagLength: 50,
  /** CWE ids of one vuln. */
  cweIdsPerVuln: 10,
  /** Organizations one directory lists: its public read shows them all, in one answer. */
  listingsPerDirectory: 500,
  /** Policies and briefs one listing shows. */
  itemsPerListing: 20,
  /** Contacts of one organization. */
  contactsPerOrganization: 20,
  /** Members (people who sign in) of one organization, invited or joined. */
  membersPerOrganization: 100,
  /** E-mails sent in an hour, per organization and per address; past them e-mails wait, never dropped. */
  emailsPerOrganizationHour: 500,
  emailsPerRecipientHour: 20,
  /** An advisory: its summary and description, in characters; products, versions of each, references, credits, vulns. */
  advisorySummaryLength: 1000,
  advisoryDescriptionLength: 100_000,
  // CVE JSON 5's longest description, which carries the remediation.
  advisoryRemediationLength: 4096,
  productsPerAdvisory: 50,
  versionsPerProduct: 100,
  versionLength: 100,
  purlLength: 1000,
  referencesPerAdvisory: 50,
  creditsPerAdvisory: 50,
  vulnsPerAdvisory: 20,
  /** Why a published advisory changed (its revision's note), in characters. */
  revisionNoteLength: 1000,
  /** Days a policy's claim on a custom domain waits for proof of control before it is released. */
  customDomainClaimDays: 7,
  /** An e-mail address, in characters (RFC 5321's longest path). */
  emailLength: 254,
  /** Webhooks of one organization. */
  webhooksPerOrganization: 20,
  /** How deep a request's JSON may nest, the outermost value counting as 1. */
  jsonDepth: 64,
  /** A file's name, in characters, once cleaned. */
  filenameLength: 255,
  /** A search of the inbox (q[search]), and a list of triage states (q[triage_state_in]), in characters. */
  searchLength: 200,
  triageStateListLength: 200,
  /** An Idempotency-Key, and the X-Request-Id a client sends, in characters. */
  idempotencyKeyLength: 255,
  clientRequestIdLength: 255,
  /** An e-mail that comes in (a reporter's reply), in bytes. */
  inboundEmailBytes: 10 * MiB,
  /**
   * Sign-in requests an hour, per address and per client IP, before 429: every request for a link
   * (a member's or not: the answers must not tell them apart), and every link or passkey that failed.
   */
  signInRequestsPerHour: 10,
  /** Minutes a sign-in link works, once; and a passkey's challenge. */
  signInLinkMinutes: 15,
  webauthnChallengeMinutes: 5,
  /** A console session ends after this many hours unused, and this many days after it began whatever happens. */
  sessionIdleHours: 12,
  sessionDays: 7,
  /** Passkeys of one member. */
  passkeysPerMember: 20,
  /** The evidence a brief may ask for: a proof of concept, and each other field, in characters. */
  proofOfConceptLength: 50_000,
  evidenceFieldLength: 10_000,
  /** The tools a reporter names in the AI-use disclosure, in characters. */
  aiToolsLength: 200,
  /**
   * Proof of work: the challenge's `maxnumber` starts here, is multiplied by 10 each time the brief's
   * last hour passes its expected rate (at most twice) and by 10 for an address with 3 or more
   * submissions in the hour, and never passes the ceiling. A challenge is good for this many minutes.
   */
  powBaseMaxnumber: 50_000,
  powMaxMaxnumber: 5_000_000,
  powAddressBurst: 3,
  powChallengeMinutes: 10,
  /** A solution as sent (base64 JSON), in characters. */
  powSolutionLength: 2_000,
  /** Submissions an hour from one address without a valid proof of work, when the brief asks for one; past it, 429. */
  unverifiedPerAddressHour: 2,
  /** A brief's expected submissions an hour, and its daily cap. */
  expectedHourlyMax: 10_000,
  dailyCapMax: 100_000,
  /** The message a paused brief shows, in characters. */
  pauseMessageLength: 500,
  /** The valid reports a key's record needs for a brief's verified lane, at most. */
  verifiedLaneMax: 1_000,
  /** A reporter's signature (X-Reporter-Signature), in characters. */
  reporterSignatureLength: 2_000,
  /** A reporter's signature may be this many seconds off the server's clock. */
  reporterSignatureSkewSeconds: 600,
  /** Queued reports the cron releases per brief per run, and an owner's release per call. */
  queueReleaseBatch: 100,
  /** Bodies of old processed events the cron empties a run (a backlog takes as many runs as it needs). */
  eventBodiesEmptiedPerRun: 1_000,
} as const;

/** A size in bytes as people read it: "10 MiB". */
export const mib = (bytes: number): string => `${bytes / MiB} MiB`;
