// The read of an e-mailed reply (the MIME parse, then the quote stripped) on bodies built to be hard
// for it, at 10 MiB (the largest message the email handler takes) against 10 KB. The API's bench entry
// answers `POST /__bench/email-reply` with the raw message; the time is the request's, the work the
// characters the stripping examined (src/notifications/reply-text.ts). Linear work makes the time ratio
// at most the size ratio (1024); the stripping it replaced took seconds on one 320 KB line.
import type { Row } from "./table.ts";

const KIB = 1024;
const MIB = 1024 * KIB;
/** Room for the headers: the message stays within the handler's 10 MiB. */
const HEADERS = 1024;

/** Bodies that cost a backtracking quote stripper the most, each as (size) => text or HTML. */
const SHAPES: { name: string; html?: boolean; body: (size: number) => string }[] = [
  { name: "one line of 'Am ... schrieb' never closed", body: (n) => `Am ${" schrieb".repeat(n / 8 - 1)}` },
  { name: "HTML of '<' never closed", html: true, body: (n) => "<".repeat(n) },
  { name: "quote markers nested deeper each line", body: (n) => nestedQuotes(n) },
  { name: "short lines", body: (n) => "ab\r\n".repeat(n / 4) },
];

function nestedQuotes(size: number): string {
  const lines = ["Reply"];
  let length = 5;
  for (let depth = 1; length < size - 2 * depth - 3; depth++) {
    lines.push(`${"> ".repeat(depth)}x`);
    length += 2 * depth + 2;
  }
  return lines.join("\n");
}

function message(body: string, html = false): string {
  return [
    "From: Finder <finder@researcher.example>",
    "To: r+bench@reply.vdp.example",
    "Subject: Re: your report",
    `Message-ID: <bench-${crypto.randomUUID()}@researcher.example>`,
    "MIME-Version: 1.0",
    `Content-Type: text/${html ? "html" : "plain"}; charset=utf-8`,
    "",
    body,
  ].join("\r\n");
}

async function timed(url: string, raw: string): Promise<{ ms: number; steps: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/__bench/email-reply`, { method: "POST", body: raw });
  const answer = (await res.json()) as { steps: number };
  if (res.status !== 200) throw new Error(`/__bench/email-reply answered ${res.status}: ${JSON.stringify(answer)}`);
  return { ms: performance.now() - started, steps: answer.steps };
}

/** One row per shape: the time at 10 MiB against 10 KB, alternating, `reps` of each. */
export async function emailReplyRows(url: string, reps: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const shape of SHAPES) {
    const [small, large] = [message(shape.body(10 * KIB - HEADERS), shape.html), message(shape.body(10 * MIB - HEADERS), shape.html)];
    const samples = { small: [] as { ms: number; steps: number }[], large: [] as { ms: number; steps: number }[] };
    for (let i = 0; i < reps; i++) {
      samples.small.push(await timed(url, small));
      samples.large.push(await timed(url, large));
    }
    const steps = (s: { steps: number }[]) => s[0]!.steps.toLocaleString("en-US");
    rows.push({
      what: `e-mailed reply read (parse, strip), ${shape.name}: 10 MiB vs 10 KB`,
      unit: "ms",
      api: samples.large.map((s) => s.ms),
      baseline: { label: "10 KB", samples: samples.small.map((s) => s.ms) },
      ratio: true,
      target: { of: "ratio", op: "<=", value: 1024 },
      note: `characters the stripping examined: ${steps(samples.large)} at 10 MiB, ${steps(samples.small)} at 10 KB`,
    });
  }
  return rows;
}
