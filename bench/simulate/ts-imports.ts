// `node --import ./bench/simulate/ts-imports.ts`: lets Node load the Worker's TypeScript modules, whose
// relative imports name no extension (the bundler and Vitest resolve them; Node does not).
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\.\.?\//.test(specifier) && !/\.[cm]?[jt]s$/.test(specifier) && context.parentURL?.startsWith("file:")) {
      for (const ending of [".ts", "/index.ts"]) {
        const url = new URL(specifier + ending, context.parentURL);
        if (existsSync(fileURLToPath(url))) return nextResolve(url.href, context);
      }
    }
    return nextResolve(specifier, context);
  },
});
