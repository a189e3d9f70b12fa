import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/lib/limits";
import { replyOf, replyText, type Work } from "../../src/notifications/reply-text";

// The text of an e-mailed reply: what the reporter wrote above the quote and the signature. Bodies can
// be 10 MiB of anything, so the reply is read from a bounded start and in work linear in what is read,
// held here by the characters the scans examine (Work), never by a clock.

const READ = LIMITS.emailReplyReadLength;
const MIB = 1024 * 1024;
const text = (t: string) => ({ text: t });

describe("replyText", () => {
  it("keeps what was written above the quote of the common mail clients and above the signature", () => {
    expect(replyText("Yes.\n\nOn Tue, Aug 4, 2026 at 10:00 AM Acme <n@vdp.example>\nwrote:\n> old")).toEqual(text("Yes."));
    expect(replyText("Oui.\r\n\r\nLe mar. 4 août 2026 à 10:00, Acme <n@vdp.example> a écrit :\r\n> old")).toEqual(text("Oui."));
    expect(replyText("Ja.\n\nAm 04.08.2026 um 10:00 schrieb Acme <n@vdp.example>:\n> alt")).toEqual(text("Ja."));
    expect(replyText("Done\n\n-----Original Message-----\nFrom: Acme\n")).toEqual(text("Done"));
    expect(replyText("Done\n\n-- original message --\nFrom: Acme\n")).toEqual(text("Done"));
    expect(replyText("Done\n________________________________\nFrom: Acme\nSent: today")).toEqual(text("Done"));
    expect(replyText("Line one\n> quoted\nmore")).toEqual(text("Line one"));
    expect(replyText("Body\n-- \nSig")).toEqual(text("Body"));
    expect(replyText("On second thought, it is worse.\nSee /admin.")).toEqual(text("On second thought, it is worse.\nSee /admin."));
    expect(replyText("Am Montag geht es.\nDanke: bis dann")).toEqual(text("Am Montag geht es.\nDanke: bis dann"));
    expect(replyText("> all quoted")).toEqual(text(""));
  });

  it("reads only the start of a body: a reply that has not ended within it is too long, and what follows changes nothing", () => {
    expect(replyText("x".repeat(READ))).toEqual(text("x".repeat(READ)));
    expect(replyText("x".repeat(READ + 1))).toEqual({ tooLong: true });
    // A reply that ends within the start is read whole, however long the quote below it.
    const history = "> an old message\n".repeat(MIB / 8);
    expect(replyText(`Thanks.\n\nOn Mon, Acme wrote:\n${history}`)).toEqual(text("Thanks."));
    // Past the start, any tail gives the answer of any other.
    const bodies = [
      `Reply\n${"x".repeat(10 * MIB)}`,
      "Reply\nline\n".repeat(MIB),
      `${"y".repeat(READ - 3)}\nOn Mon,\nAcme wrote:\n> quoted`,
      `Reply\n\n${" \n".repeat(MIB)}> quoted`,
    ];
    for (const body of bodies) {
      const answers = ["", "\n> quoted", "\n-- \nsig", "z".repeat(100)].map((tail) => replyText(`${body.slice(0, READ)}${tail}!`));
      expect(answers.every((a) => JSON.stringify(a) === JSON.stringify(replyText(body)))).toBe(true);
    }
  });

  it("does work bounded by what it reads, however pathological the body", () => {
    // Each pattern as one line, and as lines of about 10,000 characters (whole lines within the start, so
    // every check of a line runs on them).
    const patterns: Record<string, string> = {
      plain: "x",
      "Am ... schrieb, never closed": " schrieb",
      "On ... wrote:, never ending the line": " wrote:x",
      "Le ... a écrit, never closed": " a écrit x",
      "dashes and spaces": "-- ",
      underscores: "_",
      "nested quote markers": "> ",
    };
    const lead = (name: string) => (name.startsWith("Am") ? "Am " : name.startsWith("On") ? "On " : name.startsWith("Le") ? "Le " : "");
    const shapes: Record<string, (size: number) => string> = {
      "short lines": (n) => "ab\r\n".repeat(n / 4),
      "blank lines": (n) => "\n".repeat(n),
      "On lines wrapping onto the next": (n) => "On a\n".repeat(n / 5),
      "a reply, then quote markers nested deeper each line": (n) =>
        `Reply\n${Array.from({ length: Math.sqrt(n) }, (_, d) => `${"> ".repeat(d + 1)}x`).join("\n")}`,
    };
    for (const [name, unit] of Object.entries(patterns)) {
      shapes[`${name}, one line`] = (n) => lead(name) + unit.repeat(n / unit.length);
      const line = lead(name) + unit.repeat(10_000 / unit.length);
      shapes[`${name}, long lines`] = (n) => `${line}\n`.repeat(Math.ceil(n / (line.length + 1)));
    }
    for (const [name, shape] of Object.entries(shapes)) {
      const work = [320 * 1024, 10 * MIB].map((size) => {
        const w: Work = { steps: 0 };
        replyText(shape(size), w);
        return w.steps;
      });
      // Each character read is examined a few times at most, and nothing past the start is read.
      expect([name, work[0]! >= READ && work[0]! <= 8 * READ], name).toEqual([name, true]);
      expect([name, work[1]], name).toEqual([name, work[0]]);
    }
  });
});

describe("replyOf an HTML-only message", () => {
  it("is the text above the first blockquote, without scripts, styles or tags", () => {
    const html =
      "<html><head><style>p{color:red}</style><SCRIPT>alert(1)</SCRIPT></head><body><div>Yes, &lt;b&gt; &amp; more.</div>" +
      "<p>Second<br/>line&nbsp;end</p><div class=q><BLOCKQUOTE>old<blockquote>older</blockquote></BLOCKQUOTE></div></body></html>";
    expect(replyOf({ html })).toEqual(text("Yes, <b> & more.\nSecond\nline end"));
    expect(replyOf({ html: "a < b and c > d" })).toEqual(text("a  d"));
    expect(replyOf({ html: "1 <> 2" })).toEqual(text("1 <> 2"));
    expect(replyOf({ html: "<p>Unclosed <script>shown" })).toEqual(text("Unclosed shown"));
  });

  it("does work linear in the body, however pathological, and stops once it has more text than a reply holds", () => {
    const shapes: Record<string, (size: number) => string> = {
      "plain text": (n) => "x".repeat(n),
      "opening brackets, never closed": (n) => "<".repeat(n),
      "scripts, never closed": (n) => "<script".repeat(n / 7),
      "styles, never closed": (n) => "<style ".repeat(n / 7),
      "line breaks, never closed": (n) => "<br   ".repeat(n / 6),
      "tags and nothing else": (n) => "<b>".repeat(n / 3),
      "closing tags of another element inside a script": (n) => `<script>${"</div>".repeat(n / 6)}`,
      ampersands: (n) => "&am".repeat(n / 3),
      "blockquotes nested deep": (n) => `Reply${"<blockquote>".repeat(n / 12)}`,
    };
    for (const [name, shape] of Object.entries(shapes)) {
      const sizes = [320 * 1024, 10 * MIB];
      const work = sizes.map((size) => {
        const w: Work = { steps: 0 };
        replyOf({ html: shape(size) }, w);
        return w.steps;
      });
      // A few steps per character at most, and the work grows no faster than the body.
      expect([name, work.every((w, k) => w > 0 && w <= 8 * sizes[k]!)], name).toEqual([name, true]);
      expect([name, work[1]! / work[0]! <= (1.1 * sizes[1]!) / sizes[0]!], name).toEqual([name, true]);
    }
  });
});
