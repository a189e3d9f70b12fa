/**
 * The public reads a change made stale: briefs and policies by shortcode, directories by slug (with
 * their pages), an organization's files by its slug, and the files served on custom domains by host.
 * A service's plan says which (Plan.evicts); the edge cache turns them into its paths (http/cache.ts).
 */
export interface Stale {
  briefs?: readonly string[];
  directories?: readonly string[];
  policies?: readonly string[];
  organizations?: readonly string[];
  hosts?: readonly string[];
  /** Published advisories by id: their read, page and renderings. */
  advisories?: readonly string[];
}
