// The API answers in English. zod's index of ~50 locales was a third of the Worker's bundle, so
// wrangler.toml's [alias] points zod's own import of that index here, keeping only English.
export { default as en } from "zod/v4/locales/en.js";
