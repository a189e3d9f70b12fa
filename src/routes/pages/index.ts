import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { cachedPublicBody, publicAdvisoryPath, publicDirectoryPath, publicPagePath, publicPolicyPath } from "../../http/cache";
import { findPublicAdvisory } from "../../services/advisories";
import { advisoryPage } from "../../templates/advisory";
import { findHallOfFame } from "../../services/hall-of-fame";
import { hallOfFamePage } from "../../templates/hall-of-fame";

import { normalizeShortcode } from "../../lib/ids";
import { findPublishedPolicy } from "../../services/policy-versions";
import { policyPage } from "../../templates/policy";
import { database } from "../../http/middleware";
import { advisoryName, routeBy, shortcodeName } from "../../http/shard-lookup";
import { normalizeUuid, nowIso } from "../../lib/ids";
import { directoryPage } from "../../templates/directory";
import { BRIEF_CSP, ICON_PATH, ICON_SVG, notFoundPage } from "../../templates/layout";
import { PAGES_CSS, PAGES_CSS_PATH } from "../../templates/styles";
import { findPublicDirectoryIn } from "../../services/public-directories";
import { briefPageRouter } from "./brief";
import { reportPageRouter } from "./report-page";
import { emailLinksRouter } from "./email-links";
import { consoleRouter } from "./console";
import { CONSOLE_JS, CONSOLE_JS_PATH } from "../../templates/console-script";
import { GATE_JS, GATE_JS_PATH } from "../../templates/gate-script";
import { POW_WORKER_JS, POW_WORKER_JS_PATH } from "../../templates/pow-worker-script";
import { everyShard } from "../../http/shard-lookup";
import { HTML, limitAddress, page, pageError, pageHeaders, sameSiteForms } from "./shared";

/**
 * The pages for people: /b (a brief and its report form), /r (the reporter's page), /d (a
 * directory), /p (a policy), /a (an advisory), /h (a policy's hall of fame), /c, /i and /u (what e-mails link to:
 * src/routes/pages/email-links.ts), /console (members signing in: src/routes/pages/console.ts), and their
 * stylesheet and script. Outside /v1: none of the API's middleware applies, and errors
 * answer as pages.
 */
export const pagesRouter = new Hono<AppEnv>();
for (const prefix of ["/b/*", "/r/*", "/d/*", "/p/*", "/a/*", "/h/*"]) pagesRouter.use(prefix, pageHeaders, sameSiteForms);
// Browsers ask for /favicon.ico on every site; both names answer the pages' icon, cached a day.
for (const path of [ICON_PATH, "/favicon.ico"]) {
  pagesRouter.get(path, (c) => c.body(ICON_SVG, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" }));
}
// What search engines may index: the programs, directories and reference; never a reporter's page
// (its address is its key) or the API's answers.
const ROBOTS_TXT =
  "User-agent: *\nDisallow: /r/\nDisallow: /c/\nDisallow: /i/\nDisallow: /u/\nDisallow: /console/sign-in/\nDisallow: /v1/\nAllow: /\n";
pagesRouter.get("/robots.txt", (c) =>
  c.body(ROBOTS_TXT, 200, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=86400" }),
);
pagesRouter.get(PAGES_CSS_PATH, (c) =>
  c.body(PAGES_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable" }),
);
// The scripts, each named by its hash like the stylesheet: the console's (passkeys), and the brief page's
// gate with the proof-of-work worker it starts.
for (const [scriptPath, body] of [
  [CONSOLE_JS_PATH, CONSOLE_JS],
  [GATE_JS_PATH, GATE_JS],
  [POW_WORKER_JS_PATH, POW_WORKER_JS],
] as const) {
  pagesRouter.get(scriptPath, (c) =>
    c.body(body, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable" }),
  );
}
// A brief's page (and its form sent back) runs the gate script, which fetches its challenge and starts
// workers from this origin. Its 404 and the error pages keep the pages' own policy: they run nothing.
pagesRouter.use("/b/:shortcode", async (c, next) => {
  await next();
  if (c.res.status !== 404 && !c.res.headers.has("Content-Security-Policy")) c.res.headers.set("Content-Security-Policy", BRIEF_CSP);
});
pagesRouter.route("/", consoleRouter);
pagesRouter.route("/", briefPageRouter);
pagesRouter.route("/", reportPageRouter);
pagesRouter.route("/", emailLinksRouter);
pagesRouter.get("/d/:slug", database(), async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const slug = c.req.param("slug").toLowerCase();
  const response = await cachedPublicBody(c, publicPagePath(publicDirectoryPath(slug))!, HTML, async () => {
    const now = nowIso();
    const found = await findPublicDirectoryIn(everyShard(c), slug, now);
    return found && directoryPage(found.directory, found.entries, now);
  });
  return response ?? page(c, notFoundPage("directory"), 404);
});
// In a sharded deployment a page reads its organization's shard, found by what its path names.
const byPolicy = routeBy((c) => shortcodeName("policy", c.req.param("shortcode")));
pagesRouter.get(
  "/a/:id",
  database(),
  routeBy((c) => advisoryName(c.req.param("id"))),
  async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const id = normalizeUuid(c.req.param("id"));
    const response =
      id &&
      (await cachedPublicBody(c, publicPagePath(publicAdvisoryPath(id))!, HTML, async () => {
        const doc = await findPublicAdvisory(c.var.database.db, id);
        return doc && advisoryPage(doc);
      }));
    return response || page(c, notFoundPage("advisory"), 404);
  },
);
// The hall of fame is read afresh each time (a reporter's consent changes it at once), never cached.
pagesRouter.get("/h/:shortcode", database(), byPolicy, async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const shortcode = normalizeShortcode(c.req.param("shortcode"));
  const hall = shortcode && (await findHallOfFame(c.var.database.db, shortcode, nowIso()));
  return hall ? page(c, hallOfFamePage(hall)) : page(c, notFoundPage("hall of fame"), 404);
});
pagesRouter.get("/p/:shortcode", database(), byPolicy, async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const shortcode = normalizeShortcode(c.req.param("shortcode"));
  const response =
    shortcode &&
    (await cachedPublicBody(c, publicPagePath(publicPolicyPath(shortcode))!, HTML, async () => {
      const now = nowIso();
      const found = await findPublishedPolicy(c.var.database.db, shortcode, now);
      return found && policyPage(found, now);
    }));
  return response || page(c, notFoundPage("disclosure policy"), 404);
});
// Any other address under the pages' prefixes: the pages' 404, not the API's JSON one.
pagesRouter.all("/b/*", (c) => page(c, notFoundPage(), 404));
pagesRouter.all("/r/*", (c) => page(c, notFoundPage(), 404));
pagesRouter.all("/d/*", (c) => page(c, notFoundPage(), 404));
pagesRouter.all("/p/*", (c) => page(c, notFoundPage(), 404));
pagesRouter.onError(pageError);
