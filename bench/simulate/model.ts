// The synthetic platform-year: who reports to whom, when, and what happens to each report after it
// arrives. Pure and seeded: the same options give the same year, so two layouts replay the same work.
// Every rate is in RATES with where it comes from; a rate no public figure gives is marked so.

export interface SimulationOptions {
  organizations: number;
  reports: number;
  webhooks: number;
  contacts: number;
  /** Zipf exponent of report volume over organizations (rank r gets a share proportional to r^-s). */
  zipf: number;
  months: number;
  seed: number;
  /** Yearly growth of the platform's volume, for the projection past the simulated months (0.5 = +50% a year). */
  growth: number;
  /**
   * The share of the year's reports replayed into SQLite (every organization is set up whole). What
   * grows with reports is scaled by 1/sample; at 1 every figure is SQLite's own.
   */
  sample: number;
  /** Median report description in characters: the assumption the bytes depend on most. */
  descriptionMedian: number;
}

export const DEFAULTS: SimulationOptions = {
  organizations: 2_000,
  reports: 200_000,
  webhooks: 2,
  contacts: 2,
  zipf: 1,
  months: 12,
  seed: 1,
  growth: 0,
  sample: 0.025,
  descriptionMedian: 1_500,
};

export interface Rate {
  value: number;
  what: string;
  source: string;
}

const rate = (value: number, what: string, source: string): Rate => ({ value, what, source });

/** The rates of the year, each with its source (printed with the tables). */
export const RATES = {
  valid: rate(
    0.25,
    "share of reports that are valid (resolved, or accepted as a risk)",
    "HackerOne puts the genuine share of submissions near 25% (2026 summary of its platform figures, reptile.haus); in-house programs report far less (GitHub, Facebook, Google: 4-7%, hackerone.com/blog/improving-signal-over-10000-bugs)",
  ),
  notApplicable: rate(
    0.28,
    "share of reports closed as not applicable or spam (spam: one in seven of them)",
    "'28% of all reports received by customers are categorized as not applicable or spam' (hackerone.com/blog/signal-requirements, 2016)",
  ),
  duplicate: rate(
    0.27,
    "share of reports closed as duplicates; the rest (20%) close as informative",
    "assumed: no platform publishes the split; duplicates are the largest remaining class",
  ),
  contactEmail: rate(0.9, "share of reports that leave a contact e-mail", "assumed: the brief's form asks for one"),
  notifyMe: rate(0.7, "share of those that ask to be told by e-mail (notify_me)", "assumed"),
  needsMoreInfo: rate(0.15, "share of reports moved to needs_more_info once", "assumed"),
  commentsValid: rate(
    5,
    "mean comments on a valid report (both sides, Poisson)",
    "assumed: no public figure found; a disclosure conversation is a handful of messages",
  ),
  commentsInvalid: rate(2, "mean comments on an invalid report", "assumed"),
  reporterShare: rate(0.45, "share of comments written by the reporter", "assumed"),
  byEmail: rate(0.3, "share of reporter comments that arrive as an e-mail reply", "assumed"),
  attachments: rate(
    0.6,
    "share of reports with attachments (1 to 3 files; rows only, the bytes are in R2)",
    "assumed: no public figure found; proof-of-concept screenshots and videos are the norm",
  ),
  firstRead: rate(
    6,
    "median hours to the first read, in office hours; triage a median 2 days later; a valid report resolved a median 30 days after triage",
    "HackerOne's response targets: first response 1 day, triage 2 days, resolution 30 days (docs.hackerone.com/en/articles/8837953)",
  ),
  acknowledgeBreach: rate(0.12, "share of reports whose acknowledge deadline (72 h) is breached", "assumed"),
  triageApproaching: rate(0.2, "share of reports that get a triage-deadline warning", "assumed"),
  resolveBreach: rate(0.15, "share of valid reports whose resolve deadline is breached", "assumed"),
  advisory: rate(
    0.05,
    "share of resolved reports disclosed in a published advisory (15% of those revised once)",
    "assumed from the field's scale: 40,009 CVEs were published in 2024 (jerrygamblin.com, 2024 CVE Data Review) while HackerOne alone counts over 78,000 valid issues a year (its 2024 report); most VDP findings are fixed without an advisory",
  ),
  revision: rate(0.15, "share of advisories revised once after publication", "assumed"),
  webhookFailure: rate(0.03, "share of webhook deliveries that fail at first (then 3 more attempts)", "assumed"),
  idempotent: rate(0.5, "share of organization writes sent with an Idempotency-Key (kept 24 h)", "assumed: SDKs send one by default"),
  policyVersions: rate(2, "policy versions an organization publishes a year", "assumed"),
  descriptionMedian: rate(
    1_500,
    "median report description, characters (log-normal, sigma 0.8; --description-median)",
    "assumed: no public figure found; the largest single driver of bytes (docs/scale.md shows how the result moves with it)",
  ),
  commentMedian: rate(400, "median comment body, characters (log-normal, sigma 0.9)", "assumed"),
  hourPeak: rate(
    1.8,
    "busiest hour of the day over the mean hour (weekends at 0.7 of a weekday)",
    "assumed: no public figure for submissions; researchers work in every time zone",
  ),
  burstFactor: rate(
    6,
    "one mass-vulnerability event a year: for three days the platform gets this many times its mean daily reports",
    "after Log4Shell: researchers 'submitted hundreds of vulnerability reports within 24 hours of the public disclosure ... We've seen thousands of reports' (HackerOne's CISO, computerweekly.com)",
  ),
} as const;

export type TriageOutcome = "resolved" | "accepted_risk" | "duplicate" | "informative" | "not_applicable" | "spam";

/** What happens to a report: times are milliseconds from the start of the year; Infinity is never. */
export interface ReportPlan {
  index: number;
  organization: number;
  at: number;
  titleLength: number;
  descriptionLength: number;
  contactEmail: boolean;
  notifyMe: boolean;
  outcome: TriageOutcome;
  actions: Action[];
}

export type ActionKind = "intake" | "read" | "update" | "triage" | "comment" | "attachment" | "alert" | "advisory" | "revision";

export interface Action {
  at: number;
  kind: ActionKind;
  /** Triage: the state moved to. Comment: "organization" | "reporter" | "email". Alert: "<deadline>:approaching" | "<deadline>:breached". */
  detail?: string;
  /** Comment body length, attachment count. */
  size?: number;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in the first `months` months of the simulated (non-leap) year. */
export const daysIn = (months: number) => MONTH_DAYS.slice(0, months).reduce((a, b) => a + b, 0);

/** The last day (0-based) of each month of the year. */
export const MONTH_LAST_DAYS = MONTH_DAYS.map((_, m) => daysIn(m + 1) - 1);

/** Mulberry32: a small seeded PRNG, so a run is reproducible. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Shares of report volume per organization rank, Zipf with exponent `s`, summing to 1. */
export function zipfShares(n: number, s: number): number[] {
  const weights = Array.from({ length: n }, (_, r) => (r + 1) ** -s);
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** Whole report counts per organization from the shares, summing to `reports` exactly (largest remainders). */
export function apportion(shares: readonly number[], reports: number): number[] {
  const exact = shares.map((s) => s * reports);
  const counts = exact.map(Math.floor);
  let left = reports - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    counts[i]!++;
  }
  return counts;
}

const logNormal = (rand: () => number, median: number, sigma: number) => {
  const u = Math.max(rand(), 1e-12);
  const v = rand();
  return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
};
const poisson = (rand: () => number, mean: number) => {
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = rand(); p > limit; p *= rand()) k++;
  return k;
};

/**
 * When reports arrive: the day (uniform over the year, weekends at 0.7, a three-day burst at
 * RATES.burstFactor in the burst week) and the hour (researchers everywhere, a mild UTC afternoon peak).
 */
export function arrivalSampler(rand: () => number, days: number, burstDay: number): () => number {
  const dayWeights = Array.from({ length: days }, (_, d) => {
    const weekend = d % 7 === 5 || d % 7 === 6 ? 0.7 : 1;
    return d >= burstDay && d < burstDay + 3 ? RATES.burstFactor.value : weekend;
  });
  const dayCdf = cumulative(dayWeights);
  const amplitude = RATES.hourPeak.value - 1;
  const hourCdf = cumulative(Array.from({ length: 24 }, (_, h) => 1 + amplitude * Math.sin(((h - 9) / 24) * 2 * Math.PI)));
  return () => {
    const day = pick(dayCdf, rand());
    const hour = pick(hourCdf, rand());
    return day * DAY + hour * HOUR + Math.floor(rand() * HOUR);
  };
}

function cumulative(weights: readonly number[]): Float64Array {
  const total = weights.reduce((a, b) => a + b, 0);
  const cdf = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w / total;
    cdf[i] = sum;
  });
  return cdf;
}

function pick(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Organization-side work happens in office hours (09:00–18:00 of a day), at or after `at`. */
function officeHours(at: number, rand: () => number): number {
  const day = Math.floor(at / DAY);
  const inDay = at - day * DAY;
  if (inDay >= 9 * HOUR && inDay < 18 * HOUR) return at;
  const next = inDay < 9 * HOUR ? day : day + 1;
  return next * DAY + 9 * HOUR + Math.floor(rand() * 9 * HOUR);
}

/** The year's reports, each with its actions, in arrival order. */
export function planYear(options: SimulationOptions): { reports: ReportPlan[]; perOrganization: number[]; burstDay: number } {
  const rand = random(options.seed);
  const days = daysIn(options.months);
  const burstDay = Math.floor(days * 0.6);
  const perOrganization = apportion(zipfShares(options.organizations, options.zipf), options.reports);
  const arrival = arrivalSampler(rand, days, burstDay);
  const reports: ReportPlan[] = [];
  perOrganization.forEach((count, organization) => {
    for (let i = 0; i < count; i++) reports.push(planReport(rand, organization, arrival(), options.descriptionMedian));
  });
  reports.sort((a, b) => a.at - b.at);
  reports.forEach((r, i) => {
    r.index = i;
  });
  return { reports, perOrganization, burstDay };
}

/** The reports a replay writes: each kept with probability `fraction`, by a draw of its own (the same for every layout). */
export function sampleReports(reports: readonly ReportPlan[], fraction: number, seed: number): ReportPlan[] {
  if (fraction >= 1) return [...reports];
  const rand = random(seed + 7);
  return reports.filter(() => rand() < fraction);
}

function outcomeOf(rand: () => number): TriageOutcome {
  const u = rand();
  if (u < RATES.valid.value) return rand() < 0.9 ? "resolved" : "accepted_risk";
  if (u < RATES.valid.value + RATES.notApplicable.value) return rand() < 1 / 7 ? "spam" : "not_applicable";
  if (u < RATES.valid.value + RATES.notApplicable.value + RATES.duplicate.value) return "duplicate";
  return "informative";
}

function planReport(rand: () => number, organization: number, at: number, descriptionMedian: number): ReportPlan {
  const outcome = outcomeOf(rand);
  const valid = outcome === "resolved" || outcome === "accepted_risk";
  const contactEmail = rand() < RATES.contactEmail.value;
  const actions: Action[] = [{ at: at + 1_000, kind: "intake" }];
  const office = (delay: number) => officeHours(at + delay, rand);
  const read = office(logNormal(rand, RATES.firstRead.value * HOUR, 1));
  actions.push({ at: read, kind: "read" });
  // Acknowledged by the first move out of new; valid reports are triaged, then closed.
  const triaged = read + logNormal(rand, 2 * DAY, 0.8);
  if (rand() < RATES.needsMoreInfo.value) {
    // Asked after the first read, answered before the triage that follows.
    const asked = read + (triaged - read) / 2;
    actions.push({ at: asked, kind: "triage", detail: "needs_more_info" });
    actions.push({ at: asked + rand() * (triaged - asked), kind: "comment", detail: "reporter", size: commentLength(rand) });
  }
  let closed: number;
  if (valid) {
    actions.push({ at: triaged, kind: "triage", detail: "triaged" });
    actions.push({ at: triaged + 10 * 60_000, kind: "update" });
    closed = triaged + logNormal(rand, 30 * DAY, 0.8);
    if (rand() < RATES.resolveBreach.value) actions.push({ at: triaged + 30 * DAY, kind: "alert", detail: "resolve:breached" });
  } else {
    closed = triaged + logNormal(rand, HOUR, 1);
  }
  actions.push({ at: closed, kind: "triage", detail: outcome });
  const comments = poisson(rand, valid ? RATES.commentsValid.value : RATES.commentsInvalid.value);
  for (let i = 0; i < comments; i++) {
    const when = read + rand() * (closed + 2 * DAY - read);
    const reporter = rand() < RATES.reporterShare.value;
    const side = reporter ? (contactEmail && rand() < RATES.byEmail.value ? "email" : "reporter") : "organization";
    actions.push({ at: reporter ? when : officeHours(when, rand), kind: "comment", detail: side, size: commentLength(rand) });
  }
  if (rand() < RATES.attachments.value) actions.push({ at: at + 2_000, kind: "attachment", size: 1 + Math.floor(rand() * 3) });
  if (rand() < RATES.acknowledgeBreach.value) actions.push({ at: at + 72 * HOUR, kind: "alert", detail: "acknowledge:breached" });
  if (rand() < RATES.triageApproaching.value) actions.push({ at: at + 216 * HOUR, kind: "alert", detail: "triage:approaching" });
  if (outcome === "resolved" && rand() < RATES.advisory.value) {
    const published = office(closed - at + logNormal(rand, 14 * DAY, 0.6));
    actions.push({ at: published, kind: "advisory" });
    if (rand() < RATES.revision.value) actions.push({ at: office(published - at + logNormal(rand, 20 * DAY, 0.8)), kind: "revision" });
  }
  return {
    index: 0,
    organization,
    at,
    titleLength: Math.round(Math.min(200, Math.max(12, logNormal(rand, 60, 0.35)))),
    descriptionLength: Math.round(Math.min(60_000, Math.max(40, logNormal(rand, descriptionMedian, 0.8)))),
    contactEmail,
    notifyMe: contactEmail && rand() < RATES.notifyMe.value,
    outcome,
    actions: actions.sort((a, b) => a.at - b.at),
  };
}

const commentLength = (rand: () => number) => Math.round(Math.min(20_000, Math.max(5, logNormal(rand, RATES.commentMedian.value, 0.9))));
