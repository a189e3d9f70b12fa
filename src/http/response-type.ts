export const JSONAPI_MEDIA_TYPE = "application/vnd.api+json";
export const JSON_MEDIA_TYPE = "application/json";
