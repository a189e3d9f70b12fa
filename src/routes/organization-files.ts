import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { cachedPublicBody, customDomainFilePath, organizationFilePath } from "../http/cache";
import { database } from "../http/middleware";
import { NotFound } from "../lib/domain-errors";
import { findSecurityTxtSource } from "../services/organization-files";
import { SECURITY_TXT_TYPE, securityTxt } from "../templates/security-txt";
import { limitAddress } from "./pages/shared";

/**
 * The files an organization publishes for machines, no key: its security.txt at /o/{slug}/security.txt
 * and at /.well-known/security.txt on the custom domain of one of its published policies. Served from
 * the edge cache like the public reads, evicted by every change of the policy behind them.
 */
export const organizationFilesRouter = new Hono<AppEnv>()
  .get("/o/:slug/security.txt", database(), async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const slug = c.req.param("slug").toLowerCase();
    const path = organizationFilePath(slug, "security.txt");
    const response = await cachedPublicBody(c, path, SECURITY_TXT_TYPE, async () => {
      const now = new Date();
      const source = await findSecurityTxtSource(c.var.database.db, { slug }, now.toISOString());
      return source && securityTxt(source, c.env.PUBLIC_ORIGIN, `${c.env.PUBLIC_ORIGIN}${path}`, now);
    });
    if (!response) throw new NotFound("organization", "No organization with that slug has a published policy.");
    return response;
  })
  .get("/.well-known/security.txt", database(), async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const host = new URL(c.req.url).hostname;
    const response = await cachedPublicBody(c, customDomainFilePath(host, "security.txt"), SECURITY_TXT_TYPE, async () => {
      const now = new Date();
      const source = await findSecurityTxtSource(c.var.database.db, { host }, now.toISOString());
      // On its own domain the file names itself there, always https (RFC 9116 asks for it).
      return source && securityTxt(source, c.env.PUBLIC_ORIGIN, `https://${host}/.well-known/security.txt`, now);
    });
    if (!response) throw new NotFound("policy", "No published policy names this host as its custom domain.");
    return response;
  });
