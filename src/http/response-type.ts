export const JSONAPI_MEDIA_TYPE = "application/vnd.api+json";
export const JSON_MEDIA_TYPE = "application/json";

// The API answers the vuln endpoints (and so the public submission, which makes a vuln) with
// application/json; everything else is JSON:API's own media type. Errors follow their route, which is
// why this lives apart from the request checks: the error formatter needs it, and they need errors.
const PLAIN_JSON_PATHS = [/^\/v1\/vulns(\/|$)/, /^\/v1\/p\/briefs\/[^/]+\/vulns\/?$/];

export function responseMediaType(path: string): string {
  return PLAIN_JSON_PATHS.some((re) => re.test(path)) ? JSON_MEDIA_TYPE : JSONAPI_MEDIA_TYPE;
}
