export const JSONAPI_MEDIA_TYPE = "application/vnd.api+json";
export const JSON_MEDIA_TYPE = "application/json";
/** A compact JWS (RFC 7515, section 9.2.1): what the platform signs for others to check. */
export const JOSE_MEDIA_TYPE = "application/jose";
