-- Custom migration (drizzle-kit generate --custom): what the unique index of the next migration
-- (policies_custom_domain_verification) needs. Until now any number of policies could name the same
-- custom_domain, and whichever was published last served its security.txt there, whoever's domain it
-- was. A domain is now one policy's on the whole platform (case aside). Where several policies name one,
-- the policy created first keeps it and the others have custom_domain cleared (their organizations read
-- null and may claim another). Nobody has proven control of any domain yet, so the one that keeps it
-- must verify it like every other claim (the next two migrations start every domain unverified); a
-- domain kept by the wrong organization is released after 7 days unless that organization proves it.
UPDATE policies SET custom_domain = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE custom_domain IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM policies earlier
    WHERE lower(earlier.custom_domain) = lower(policies.custom_domain)
      AND (earlier.created_at < policies.created_at OR (earlier.created_at = policies.created_at AND earlier.id < policies.id))
  );
