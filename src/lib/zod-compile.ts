// zod's ahead-of-time compiler (`z.compile`), which the API never calls: 31 KiB of the Worker's bundle
// (7 KiB gzip). zod's index re-exports it by name, so wrangler.toml's [alias] points that import here,
// where the names exist and the functions say why they do not work. Tests run zod whole.
const LEFT_OUT = "z.compile is left out of this Worker's bundle (wrangler.toml [alias])";

export const INVALID = Symbol.for("zod.compile.invalid");

export class ZodCompileAsyncError extends Error {}

export class ZodCompileUnsupportedError extends Error {}

export function compile(): never {
  throw new Error(LEFT_OUT);
}

export const withParser = compile;
export const compileFn = compile;
