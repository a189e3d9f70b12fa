// `npm run assets` (npm install and npm ci run it too, as postinstall): copies the browser files the
// Worker serves as static assets from node_modules into public/ (ignored by git), so the reference
// page's script never enters the Worker's bundle and works offline. Plain JavaScript, not TypeScript:
// it runs during install, before anything else is certain to be in place.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(path.join(root, "package.json"));
const out = path.join(root, "public", "assets");
mkdirSync(out, { recursive: true });

const scalar = require.resolve("@scalar/api-reference/browser/standalone.js");
copyFileSync(scalar, path.join(out, "scalar-api-reference.js"));
// Static assets skip the Worker, so their headers are set here (Workers Static Assets reads _headers).
writeFileSync(
  path.join(root, "public", "_headers"),
  "/assets/*\n  X-Content-Type-Options: nosniff\n  Cache-Control: public, max-age=3600\n  Cross-Origin-Resource-Policy: same-origin\n",
);
console.log("Copied the reference page's script to public/assets/.");
