// Writes test/fixtures/duplicates/reports.jsonl, the near-duplicate corpus, from the phrase banks in
// test/fixtures/duplicates/templates.ts: `node scripts/duplicate-corpus.ts`. Deterministic (mulberry32(37)),
// so the committed file is exactly this script's output (test/unit/duplicate-corpus.test.ts holds it so).
// How the corpus is built and why: test/fixtures/duplicates/README.md.
import {
  CLASSES,
  type ClassId,
  ENDPOINTS,
  type Endpoint,
  GENERIC_TOPICS,
  type Voice,
  VOICES,
  type VoiceId,
} from "../test/fixtures/duplicates/templates.ts";
import { random as mulberry32 } from "../bench/simulate/model.ts";

export interface CorpusReport {
  id: string;
  /** Reports of one finding share it; every other finding has one report. */
  finding: string;
  title: string;
  description: string;
  domains: string[];
  split: "tune" | "holdout";
}

export const PAIRS = 60;
const HARD_NEGATIVES = 40;
const UNRELATED = 200 - HARD_NEGATIVES - GENERIC_TOPICS.length;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
/** Two different indexes into a bank, so the two reports of a pair never share a sentence of it. */
function twoIndexes(rng: Rng, length: number): [number, number] {
  const a = Math.floor(rng() * length);
  const b = (a + 1 + Math.floor(rng() * (length - 1))) % length;
  return [a, b];
}

interface Finding {
  endpoint: Endpoint;
  param: string | null;
  cls: ClassId;
}
const findingKey = (f: Finding) => `${f.endpoint.host}${f.endpoint.path}|${f.param ?? ""}|${f.cls}`;

/** Every (endpoint, parameter, class) that makes sense in the product. */
function allFindings(): Finding[] {
  const out: Finding[] = [];
  for (const endpoint of ENDPOINTS) {
    for (const [param, kind] of Object.entries(endpoint.params)) {
      for (const [cls, c] of Object.entries(CLASSES) as [ClassId, (typeof CLASSES)[ClassId]][]) {
        if (c.kinds.includes(kind) && (!c.method || c.method === endpoint.method)) out.push({ endpoint, param, cls });
      }
    }
    for (const cls of endpoint.whole) out.push({ endpoint, param: null, cls });
  }
  return out;
}

/** How the place is given: a full URL, a path alone, or only words (the hard case). */
type Style = "url" | "path" | "words";

/** The choices one report makes among the banks; a pair's two reports get different ones. */
interface Picks {
  payload: number;
  effect: number;
  impact: number;
}

const SEVERITIES = ["Critical", "High", "Medium", "Low"];

function fillId(rng: Rng, host: string, path: string): string {
  return path.replace(/\{id\}/g, () =>
    host === "api" && rng() < 0.4
      ? `${Math.floor(rng() * 0xffffffff)
          .toString(16)
          .padStart(8, "0")}-4a1e-4c2b-9d3f-${Math.floor(rng() * 0xffffffffffff)
          .toString(16)
          .padStart(12, "0")}`
      : String(1000 + Math.floor(rng() * 900000)),
  );
}

function render(rng: Rng, f: Finding, voiceId: VoiceId, style: Style, picks: Picks): { title: string; description: string } {
  const voice: Voice = VOICES[voiceId];
  const c = CLASSES[f.cls];
  const e = f.endpoint;
  const name = c.names[pick(rng, voice.names)]!;
  const origin = `https://${e.host}.northwind.test`;
  const path = fillId(rng, e.host, e.path);
  const url = `${origin}${path}`;
  let payload = c.payloads[picks.payload % c.payloads.length]!;
  if (payload.includes("{url}"))
    payload = style === "words" ? c.payloads[(picks.payload + 1) % c.payloads.length]! : payload.replace("{url}", url);
  const encode = rng() < 0.4;
  const value = encode ? encodeURIComponent(payload) : payload.replaceAll(" ", "%20");
  const technical = voiceId === "terse" || voiceId === "scanner" || voiceId === "pentest";

  let where: string;
  if (style === "words") where = pick(rng, e.feature);
  else if (style === "path") where = `${rng() < 0.5 ? `${e.method} ` : ""}${rng() < 0.5 ? e.path : path}`;
  else if (f.param && e.method === "GET") {
    const others = Object.keys(e.params).filter((p) => p !== f.param && rng() < 0.3);
    where = `${url}?${[`${f.param}=${value}`, ...others.map((o) => `${o}=1`)].join("&")}`;
  } else where = `${e.method === "POST" ? "POST " : ""}${url}`;
  const place = style === "words" || !technical ? pick(rng, e.feature) : e.path;

  const severity = pick(rng, SEVERITIES);
  const fill = (t: string) =>
    t
      .replaceAll("{name}", name)
      .replaceAll("{place}", place)
      .replaceAll("{where}", where)
      .replaceAll("{param}", f.param ?? "")
      .replaceAll("{payload}", payload)
      .replaceAll("{effect}", c.effects[picks.effect % c.effects.length]!)
      .replaceAll("{impact}", c.impacts[picks.impact % c.impacts.length]!)
      .replaceAll("{severity}", severity)
      .replaceAll("{cwe}", `CWE-${c.cwe}`);

  const lines: string[] = [fill(pick(rng, voice.openings)), fill(pick(rng, voice.locations))];
  // The parameter is said in words when the URL does not show it, and by some reporters anyway.
  if (f.param && (style !== "url" || e.method === "POST" || rng() < 0.5)) lines.push(fill(pick(rng, voice.parameters)));
  if (style === "url" && voiceId === "scanner" && e.method === "POST") {
    lines.push(`Request:\nPOST ${path} HTTP/1.1\nHost: ${e.host}.northwind.test\n\n${f.param ? `${f.param}=${value}` : ""}`);
  }
  lines.push(fill(pick(rng, voice.steps)), fill(pick(rng, voice.effects)), fill(pick(rng, voice.impacts)), fill(pick(rng, voice.closings)));
  const sep = voiceId === "narrative" || voiceId === "pentest" ? (rng() < 0.5 ? "\n\n" : " ") : "\n";
  return { title: fill(pick(rng, voice.titles)), description: lines.filter((l) => l.trim() !== "").join(sep) };
}

function renderGeneric(rng: Rng, topic: (typeof GENERIC_TOPICS)[number], voiceId: VoiceId): { title: string; description: string } {
  const voice = VOICES[voiceId];
  const impact = "An attacker could abuse this against customers of the shop.";
  const lines = [
    pick(rng, voice.openings),
    topic.body,
    fillGeneric(pick(rng, voice.impacts), impact),
    fillGeneric(pick(rng, voice.closings), ""),
  ];
  return {
    title: voiceId === "begbounty" ? `Critical bug: ${topic.title}` : topic.title,
    description: lines.filter((l) => l.trim()).join("\n"),
  };
}
const fillGeneric = (t: string, impact: string) =>
  t.replaceAll("{impact}", impact).replaceAll("{cwe}", "CWE-693").replaceAll("{severity}", "Low").replaceAll("{name}", "misconfiguration");

const VOICE_IDS = Object.keys(VOICES) as VoiceId[];

/** The corpus, in submission order. */
export function generateCorpus(): CorpusReport[] {
  const rng = mulberry32(37);
  const pool = shuffle(rng, allFindings());
  const used = new Set<string>();
  const take = (f: Finding) => used.add(findingKey(f));

  // The pairs: distinct endpoints and parameters, so each pair has its own hard negatives.
  const pairs: Finding[] = [];
  const pairPlaces = new Set<string>();
  for (const f of pool) {
    const place = `${f.endpoint.path}|${f.param}`;
    if (pairs.length < PAIRS && !pairPlaces.has(place)) {
      pairs.push(f);
      pairPlaces.add(place);
      take(f);
    }
  }
  // Blocks of ten alternate, so each split holds the same mix of styles (see the 70/20/10 below).
  const pairSplit = new Map(pairs.map((f, i) => [findingKey(f), Math.floor(i / 10) % 2 === 0 ? ("tune" as const) : ("holdout" as const)]));

  // Hard negatives: a pair's endpoint and parameter with another weakness (another CWE), or its endpoint and
  // weakness with another parameter.
  const hard: { f: Finding; split: "tune" | "holdout" }[] = [];
  const twinOf = (p: Finding, kind: "other class" | "other param") =>
    pool.find(
      (f) =>
        !used.has(findingKey(f)) &&
        f.endpoint === p.endpoint &&
        (kind === "other class"
          ? f.param === p.param && CLASSES[f.cls].cwe !== CLASSES[p.cls].cwe
          : p.param !== null && f.param !== null && f.param !== p.param && f.cls === p.cls),
    );
  // Half of each kind, as far as the product allows; then whichever kind is left.
  for (const [kind, target] of [
    ["other class", HARD_NEGATIVES / 2],
    ["other param", HARD_NEGATIVES],
    ["other class", HARD_NEGATIVES],
  ] as const) {
    for (let progress = true; progress && hard.length < target; ) {
      progress = false;
      for (const p of pairs) {
        const twin = hard.length < target ? twinOf(p, kind) : undefined;
        if (twin) {
          take(twin);
          hard.push({ f: twin, split: pairSplit.get(findingKey(p))! });
          progress = true;
        }
      }
    }
  }
  if (hard.length !== HARD_NEGATIVES) throw new Error(`only ${hard.length} hard negatives`);
  const unrelated = pool.filter((f) => !used.has(findingKey(f))).slice(0, UNRELATED);
  if (unrelated.length !== UNRELATED) throw new Error(`only ${unrelated.length} unrelated findings`);

  const reports: Omit<CorpusReport, "id">[] = [];
  const domainOf = (f: Finding) => [`${f.endpoint.host}.northwind.test`];
  pairs.forEach((f, i) => {
    const [va, vb] = twoIndexes(rng, VOICE_IDS.length);
    const [pa, pb] = twoIndexes(rng, CLASSES[f.cls].payloads.length);
    const [ea, eb] = twoIndexes(rng, CLASSES[f.cls].effects.length);
    const [ia, ib] = twoIndexes(rng, CLASSES[f.cls].impacts.length);
    // 70% give the URL on both sides, 20% only a path on one side, 10% only words on one side.
    const other: Style = i % 10 === 9 ? "words" : i % 10 >= 7 ? "path" : "url";
    const finding = `pair-${String(i + 1).padStart(2, "0")}`;
    const split = pairSplit.get(findingKey(f))!;
    for (const [voice, style, picks] of [
      [VOICE_IDS[va]!, "url", { payload: pa, effect: ea, impact: ia }],
      [VOICE_IDS[vb]!, other, { payload: pb, effect: eb, impact: ib }],
    ] as const) {
      reports.push({ finding, ...render(rng, f, voice, style, picks), domains: domainOf(f), split });
    }
  });
  const single = (f: Finding, n: number, split: "tune" | "holdout") => {
    const style: Style = rng() < 0.8 ? "url" : rng() < 0.7 ? "path" : "words";
    const picks = { payload: Math.floor(rng() * 10), effect: Math.floor(rng() * 10), impact: Math.floor(rng() * 10) };
    reports.push({
      finding: `single-${String(n).padStart(3, "0")}`,
      ...render(rng, f, pick(rng, VOICE_IDS), style, picks),
      domains: domainOf(f),
      split,
    });
  };
  for (const [i, h] of hard.entries()) single(h.f, i + 1, h.split);
  for (const [i, f] of unrelated.entries()) single(f, HARD_NEGATIVES + i + 1, i % 2 === 0 ? "tune" : "holdout");
  GENERIC_TOPICS.forEach((t, i) => {
    const n = HARD_NEGATIVES + UNRELATED + i + 1;
    reports.push({
      finding: `single-${String(n).padStart(3, "0")}`,
      ...renderGeneric(rng, t, pick(rng, VOICE_IDS)),
      domains: ["northwind.test"],
      split: i % 2 === 0 ? "tune" : "holdout",
    });
  });
  return shuffle(rng, reports).map((r, i) => ({ id: `r${String(i + 1).padStart(3, "0")}`, ...r }));
}

export const corpusJsonl = () =>
  `${generateCorpus()
    .map((r) => JSON.stringify(r))
    .join("\n")}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { writeFileSync } = await import("node:fs");
  const target = new URL("../test/fixtures/duplicates/reports.jsonl", import.meta.url).pathname;
  writeFileSync(target, corpusJsonl());
  console.log(`wrote ${generateCorpus().length} reports to ${target}`);
}
