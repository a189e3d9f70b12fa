// The quality gate's cost to a public submission (BENCH_ONLY part `gate`): a brief with proof of work on
// against one with it off, in one organization. Solutions are solved before the timing starts (node:crypto,
// as the tests' helper does), each request comes from its own client address (the submit limiter and the
// gate count per address), and the two sides are sent one at a time, interleaved, so both see the same
// machine. The brief's expected rate is the largest allowed, so its challenges stay at the easiest
// maxnumber however many the bench sends. Also the bytes a brief page's scripts weigh, as a browser
// fetches them.
import { createHash } from "node:crypto";
import type { Row } from "./table.ts";

/** Submissions per side per repetition, after a warm-up of WARM each. */
const PER_REP = Number(process.env.BENCH_GATE_SUBMISSIONS ?? 100);
const WARM = 10;
const EXPECTED_HOURLY_MAX = 100_000;
const SCRIPTS_BUDGET = 20 * 1024;

interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** Addresses of their own (10.137.x.y), apart from the other parts' 10.77.x.y. */
function addresses(): () => string {
  let i = 0;
  return () => {
    i = (i + 1) % 65_536;
    return `10.137.${i >> 8}.${i & 255}`;
  };
}

function solve(c: Challenge): string {
  for (let number = 0; number <= c.maxnumber; number++) {
    if (
      createHash("sha256")
        .update(c.salt + number)
        .digest("hex") === c.challenge
    ) {
      return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature }));
    }
  }
  throw new Error(`no number up to ${c.maxnumber} solves the bench's challenge`);
}

async function publishedBrief(url: string, key: string, name: string, gate: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/v1/briefs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/vnd.api+json" },
    body: JSON.stringify({
      data: { type: "brief", attributes: { name, published_at: new Date(Date.now() - 60_000).toISOString(), ...gate } },
    }),
  });
  const body = (await res.json()) as { data: { attributes: { shortcode: string } } };
  if (res.status !== 201) throw new Error(`making the gate bench's brief "${name}": ${res.status} ${JSON.stringify(body)}`);
  return body.data.attributes.shortcode;
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * Rows: "public submission with a valid solution vs proof of work off: p50" (target ratio <= 1.2), and
 * "page scripts (gate + pow worker) bytes" (target <= 20 KiB). `key` is an organization's API key.
 */
export async function gateRows(url: string, key: string, reps: number): Promise<Row[]> {
  const address = addresses();
  const off = await publishedBrief(url, key, "Bench gate: proof of work off", { proof_of_work: "off" });
  const on = await publishedBrief(url, key, "Bench gate: proof of work on", { proof_of_work: "on", expected_hourly: EXPECTED_HOURLY_MAX });

  const challenges: Challenge[] = [];
  for (let i = 0; i < WARM + reps * PER_REP + 1; i++) {
    const res = await fetch(`${url}/v1/p/briefs/${on}/challenge`, { headers: { "CF-Connecting-IP": address() } });
    if (res.status !== 200) throw new Error(`the challenge answered ${res.status}: ${await res.text()}`);
    challenges.push((await res.json()) as Challenge);
  }
  const solutions = challenges.map(solve);

  let n = 0;
  const statuses: Record<string, number> = {};
  async function submit(shortcode: string, extra: Record<string, string>): Promise<{ ms: number; res: Response }> {
    const body = JSON.stringify({
      data: { type: "vuln", attributes: { title: `bench-gate-${process.pid}-${n++}`, description: "The gate's cost to a submission." } },
    });
    const started = performance.now();
    const res = await fetch(`${url}/v1/p/briefs/${shortcode}/vulns`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": address(), ...extra },
      body,
    });
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 201) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    return { ms, res };
  }
  const pow = (solution: string) => ({ "X-Pow-Solution": solution });

  for (let i = 0; i < WARM; i++) {
    await submit(off, {});
    await submit(on, pow(solutions.pop()!));
  }
  const p50 = { off: [] as number[], on: [] as number[] };
  for (let r = 0; r < reps; r++) {
    const ms = { off: [] as number[], on: [] as number[] };
    for (let i = 0; i < PER_REP; i++) {
      // Which side goes first alternates, so neither always follows the other.
      if (i % 2) ms.off.push((await submit(off, {})).ms);
      ms.on.push((await submit(on, pow(solutions.pop()!))).ms);
      if (!(i % 2)) ms.off.push((await submit(off, {})).ms);
    }
    p50.off.push(median(ms.off));
    p50.on.push(median(ms.on));
  }
  const probe = async (shortcode: string, extra: Record<string, string>) => {
    const { res } = await submit(shortcode, { ...extra, "X-Bench-Rows-Read": "1" });
    return `${res.headers.get("X-D1-Rows-Read") ?? "?"} rows read in ${res.headers.get("X-Bench-D1-Round-Trips") ?? "?"} round trips`;
  };
  const probes = `off: ${await probe(off, {})}; on: ${await probe(on, pow(solutions.pop()!))}`;
  const unverified = await fetch(`${url}/v1/vulns?q%5Bgate_eq%5D=unverified&page%5Bsize%5D=1`, {
    headers: { Authorization: `Bearer ${key}` },
  }).then((r) => r.json() as Promise<{ data?: unknown[] }>);
  const refused = Object.entries(statuses).map(([code, count]) => `${code} ×${count}`);

  const page = await fetch(`${url}/b/${on}`).then((r) => r.text());
  const script = /<script src="([^"]+)"/.exec(page)?.[1];
  const worker = /data-worker="([^"]+)"/.exec(page)?.[1];
  const bytes = async (path: string | undefined) => (path ? (await (await fetch(`${url}${path}`)).arrayBuffer()).byteLength : Number.NaN);
  const [scriptBytes, workerBytes] = [await bytes(script), await bytes(worker)];

  return [
    {
      what: "public submission with a valid solution vs proof of work off: p50",
      unit: "ms",
      api: p50.on,
      baseline: { label: "proof of work off", samples: p50.off },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1.2 },
      note: [
        `${PER_REP} a side a repetition, one at a time, interleaved`,
        probes,
        unverified.data?.length ? "a submission with a solution came out unverified" : undefined,
        ...refused,
      ]
        .filter(Boolean)
        .join("; "),
    },
    {
      what: "page scripts (gate + pow worker) bytes",
      unit: "B",
      api: Number.isNaN(scriptBytes + workerBytes) ? [] : [scriptBytes + workerBytes],
      target: { of: "value", op: "<=", value: SCRIPTS_BUDGET },
      note:
        script && worker
          ? `${script} ${scriptBytes} B, ${worker} ${workerBytes} B, uncompressed`
          : "the brief page names no gate script (script src or data-worker not found)",
    },
  ];
}
