-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express FTS5 tables or triggers.
-- Text search over reports (q[search]): one FTS5 index over each vuln's title and description and one
-- over comments' bodies. Both are external-content tables: the text stays in vulns and comments only,
-- and the index is keyed by their rowids. The organization's id is indexed too, so a search names
-- its organization inside the MATCH. Triggers keep both in step with every write, whatever door it
-- came through (cascades included). A migration that rebuilds vulns or comments (new rowids) must end
-- with INSERT INTO vulns_search(vulns_search) VALUES('rebuild') (and the same for comments_search).
CREATE VIRTUAL TABLE vulns_search USING fts5(organization_id, title, description, content='vulns', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE VIRTUAL TABLE comments_search USING fts5(organization_id, body, content='comments', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO vulns_search(vulns_search) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO comments_search(comments_search) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER vulns_search_insert AFTER INSERT ON vulns
BEGIN
  INSERT INTO vulns_search (rowid, organization_id, title, description) VALUES (NEW.rowid, NEW.organization_id, NEW.title, NEW.description);
END;
--> statement-breakpoint
CREATE TRIGGER vulns_search_delete AFTER DELETE ON vulns
BEGIN
  INSERT INTO vulns_search (vulns_search, rowid, organization_id, title, description)
    VALUES ('delete', OLD.rowid, OLD.organization_id, OLD.title, OLD.description);
END;
--> statement-breakpoint
CREATE TRIGGER vulns_search_update AFTER UPDATE OF title, description ON vulns
BEGIN
  INSERT INTO vulns_search (vulns_search, rowid, organization_id, title, description)
    VALUES ('delete', OLD.rowid, OLD.organization_id, OLD.title, OLD.description);
  INSERT INTO vulns_search (rowid, organization_id, title, description) VALUES (NEW.rowid, NEW.organization_id, NEW.title, NEW.description);
END;
--> statement-breakpoint
CREATE TRIGGER comments_search_insert AFTER INSERT ON comments
BEGIN
  INSERT INTO comments_search (rowid, organization_id, body) VALUES (NEW.rowid, NEW.organization_id, NEW.body);
END;
--> statement-breakpoint
CREATE TRIGGER comments_search_delete AFTER DELETE ON comments
BEGIN
  INSERT INTO comments_search (comments_search, rowid, organization_id, body) VALUES ('delete', OLD.rowid, OLD.organization_id, OLD.body);
END;
