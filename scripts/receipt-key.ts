// `npm run --silent receipt-key`: prints a new Ed25519 signing key for RECEIPT_SIGNING_KEY, as the JSON
// private JWK the Worker reads, with a kid naming the month it was made. To rotate, put the new key
// first and keep the old one after it: `[<new>, <old>]` (old receipts verify while its public half is served).
import { generateKeyPairSync, randomBytes } from "node:crypto";

const { privateKey } = generateKeyPairSync("ed25519");
const { kty, crv, x, d } = privateKey.export({ format: "jwk" });
const kid = `${new Date().toISOString().slice(0, 7)}-${randomBytes(3).toString("hex")}`;
console.log(JSON.stringify({ kid, kty, crv, x, d }));
