// zod's JSON Schema reader (`z.fromJSONSchema`), which the API never calls: 12 KiB of the Worker's
// bundle (5 KiB gzip). wrangler.toml's [alias] points zod's import of it here. Tests run zod whole.
export function fromJSONSchema(): never {
  throw new Error("z.fromJSONSchema is left out of this Worker's bundle (wrangler.toml [alias])");
}
