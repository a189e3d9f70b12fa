// A local webhook receiver for watching deliveries while `npm run dev` runs:
//   npm run webhook-receiver -- --secret whsec_... [--port 9000] [--status 204]
// It verifies each delivery's Standard Webhooks signature with the secret (the reference
// implementation, `standardwebhooks`), prints it readably, and answers --status (401 if the
// signature does not verify). Point a webhook at http://127.0.0.1:<port>/ (allowed in development).
import http from "node:http";
import { Webhook } from "standardwebhooks";
import { flagValue } from "./wrangler.ts";

const args = process.argv.slice(2);
const secret = flagValue(args, "--secret") ?? process.env.WEBHOOK_SECRET;
const port = Number(flagValue(args, "--port") ?? 9000);
const status = Number(flagValue(args, "--status") ?? 204);
if (!secret?.startsWith("whsec_")) {
  console.error("Usage: npm run webhook-receiver -- --secret whsec_... [--port 9000] [--status 204]");
  console.error("The secret is in the response that created the webhook (or POST /v1/webhooks/{id}/rotate_secret).");
  process.exit(2);
}
const verifier = new Webhook(secret);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    let verdict: string;
    let ok = false;
    try {
      verifier.verify(body, headers);
      ok = true;
      verdict = "signature verified";
    } catch (err) {
      verdict = `SIGNATURE NOT VERIFIED (${(err as Error).message})`;
    }
    let pretty = body;
    try {
      pretty = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // not JSON: print as received
    }
    const at = new Date(Number(headers["webhook-timestamp"]) * 1000 || Date.now()).toISOString();
    console.log(`\n── ${headers["x-webhook-event"] ?? "(no X-Webhook-Event)"}  ${ok ? "✔" : "✘"} ${verdict}`);
    console.log(`   webhook-id ${headers["webhook-id"]}  at ${at}  from ${headers["user-agent"]}`);
    console.log(pretty.replace(/^/gm, "   "));
    res.statusCode = ok ? status : 401;
    res.end();
  });
});

server.listen(port, "127.0.0.1", () => {
  console.log(`Webhook receiver listening on http://127.0.0.1:${port}/ (answering ${status} to verified deliveries)`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)));
