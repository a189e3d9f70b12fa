// No imports: `npm run dev`'s seed (Node, scripts/seed.ts) writes what the Worker reads.

/**
 * The browser binding of the sign-in link `npm run dev`'s seed writes for the demo owner: no cookie
 * hashes to it (a SHA-256 is 64 hex digits), and the link page accepts it only where the request is
 * local and the Worker runs under `npm run dev` (acceptsAnyBrowser, src/routes/pages/console.ts).
 */
export const ANY_BROWSER = "any-browser:npm-run-dev-seed";

/** How long the seed's link works (once): a newcomer may open it well after the server started. */
export const SEED_LINK_HOURS = 24;
