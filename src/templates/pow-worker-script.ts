import { fnv1a } from "./styles";

// The proof-of-work solver the brief page's script (gate-script.ts) starts in a few Web Workers, each on
// its own share of 0..maxnumber: it finds the number n with SHA-256(salt + n) = challenge (ALTCHA v1).
// A synchronous SHA-256 of its own, because one awaited crypto.subtle.digest per try is about ten times
// slower. The constants are derived (fractional parts of the primes' roots) rather than listed, to stay
// small. A classic worker served from this string at its own path (CSP worker-src 'self', no blob:).
// Message in: {salt, challenge, start, end}; out: {number} (null when its share has none).

export const POW_WORKER_JS = `"use strict";
const K = new Int32Array(64), V = new Int32Array(8), w = new Int32Array(64), h = new Int32Array(8);
for (let p = 2, i = 0; i < 64; p++) {
  let prime = true;
  for (let d = 2; d * d <= p; d++) if (p % d === 0) prime = false;
  if (!prime) continue;
  if (i < 8) V[i] = (Math.sqrt(p) % 1) * 4294967296;
  K[i++] = (Math.cbrt(p) % 1) * 4294967296;
}
function block(v, o) {
  for (let i = 0; i < 16; i++) w[i] = v.getInt32(o + i * 4);
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15], y = w[i - 2];
    w[i] = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + w[i - 16] +
      (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + w[i - 7] | 0;
  }
  let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (let i = 0; i < 64; i++) {
    const t = k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i] + w[i] | 0;
    const u = (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c)) | 0;
    k = g; g = f; f = e; e = d + t | 0; d = c; c = b; b = a; a = t + u | 0;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}
onmessage = (m) => {
  const { salt, challenge, start, end } = m.data;
  const target = new Int32Array(8);
  for (let i = 0; i < 8; i++) target[i] = parseInt(challenge.slice(i * 8, i * 8 + 8), 16);
  const s = new TextEncoder().encode(salt);
  const buf = new Uint8Array(Math.ceil((s.length + 26) / 64) * 64), v = new DataView(buf.buffer);
  buf.set(s);
  for (let n = start; n <= end; n++) {
    const digits = String(n);
    let len = s.length;
    for (let i = 0; i < digits.length; i++) buf[len++] = digits.charCodeAt(i);
    const size = Math.ceil((len + 9) / 64) * 64;
    buf.fill(0, len, size);
    buf[len] = 128;
    v.setUint32(size - 4, len * 8);
    h.set(V);
    for (let o = 0; o < size; o += 64) block(v, o);
    let i = 0;
    while (i < 8 && h[i] === target[i]) i++;
    if (i === 8) return postMessage({ number: n });
  }
  postMessage({ number: null });
};
`;

export const POW_WORKER_JS_PATH = `/scripts/pow-${fnv1a(POW_WORKER_JS)}.js`;
