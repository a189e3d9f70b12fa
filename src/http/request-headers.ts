import { LIMITS } from "../lib/limits";

// The forms of the request headers a client chooses the value of.

/** An Idempotency-Key: 1 to 255 printable ASCII characters (space included). */
export const IDEMPOTENCY_KEY_PATTERN = `^[\\x20-\\x7E]{1,${LIMITS.idempotencyKeyLength}}$`;
/** The X-Request-Id a client sends that is echoed back as X-Client-Request-Id: 1 to 255 word characters and -=.: */
export const CLIENT_REQUEST_ID_PATTERN = `^[\\w\\-=.:]{1,${LIMITS.clientRequestIdLength}}$`;
export const CLIENT_REQUEST_ID = new RegExp(CLIENT_REQUEST_ID_PATTERN);
