// A software passkey for the sharded console's tests: an ES256 key pair answering WebAuthn's ceremonies
// as an authenticator with "none" attestation would (what a browser's virtual authenticator does in
// test/node). Enough CBOR for its two structures.

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function cbor(value: unknown): Uint8Array {
  const head = (major: number, n: number) =>
    n < 24 ? [(major << 5) | n] : n < 256 ? [(major << 5) | 24, n] : [(major << 5) | 25, n >> 8, n & 255];
  if (typeof value === "number") return new Uint8Array(value >= 0 ? head(0, value) : head(1, -1 - value));
  if (typeof value === "string") {
    const text = new TextEncoder().encode(value);
    return new Uint8Array([...head(3, text.length), ...text]);
  }
  if (value instanceof Uint8Array) return new Uint8Array([...head(2, value.length), ...value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value as object);
  return new Uint8Array([...head(5, entries.length), ...entries.flatMap(([k, v]) => [...cbor(k), ...cbor(v)])]);
}

/** ECDSA's raw r||s as the DER sequence WebAuthn carries. */
function der(raw: Uint8Array): Uint8Array {
  const int = (x: Uint8Array) => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0) i++;
    const trimmed = x.slice(i);
    const body = trimmed[0]! & 0x80 ? [0, ...trimmed] : [...trimmed];
    return [0x02, body.length, ...body];
  };
  const seq = [...int(raw.slice(0, 32)), ...int(raw.slice(32))];
  return new Uint8Array([0x30, seq.length, ...seq]);
}

const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

export async function softwarePasskey(origin: string) {
  const rpId = new URL(origin).hostname;
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
  const coord = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const cose = cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, coord(jwk.x!)],
      [-3, coord(jwk.y!)],
    ]),
  );
  const credentialId = crypto.getRandomValues(new Uint8Array(16));
  const id = b64url(credentialId);
  let counter = 0;
  const authData = async (flags: number, attested?: Uint8Array) => {
    counter++;
    const count = [(counter >>> 24) & 255, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255];
    return new Uint8Array([...(await sha256(new TextEncoder().encode(rpId))), flags, ...count, ...(attested ?? [])]);
  };
  const clientData = (type: string, challenge: string) => new TextEncoder().encode(JSON.stringify({ type, challenge, origin }));
  return {
    id,
    /** The browser's answer to registration options: "none" attestation of this key. */
    async register(challenge: string) {
      const attested = new Uint8Array([...new Uint8Array(16), 0, credentialId.length, ...credentialId, ...cose]);
      const attestationObject = cbor({ fmt: "none", attStmt: {}, authData: await authData(0x45, attested) });
      return {
        id,
        rawId: id,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData("webauthn.create", challenge)),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
      };
    },
    /** The browser's answer to sign-in options: an assertion signed by this key. */
    async assert(challenge: string) {
      const data = clientData("webauthn.get", challenge);
      const auth = await authData(0x05);
      const signed = new Uint8Array([...auth, ...(await sha256(data))]);
      const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, signed));
      return {
        id,
        rawId: id,
        type: "public-key",
        clientExtensionResults: {},
        response: { clientDataJSON: b64url(data), authenticatorData: b64url(auth), signature: b64url(der(raw)) },
      };
    },
  };
}
