-- Custom migration (drizzle-kit generate --custom): each custom domain named before claims existed
-- (policies_custom_domain_verification) becomes a claim begun now, with a TXT record value of its own
-- (128 random bits, as the API makes them), unverified: it serves nothing until its organization proves
-- control of it, and is released after 7 days if it never does.
UPDATE policies SET
  custom_domain_token = lower(hex(randomblob(16))),
  custom_domain_claimed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE custom_domain IS NOT NULL AND custom_domain_token IS NULL;
