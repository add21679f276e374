-- The URL the page was at when it was captured (after redirects and client-side route changes): the
-- capture record's `finalUrl` (README, Capture record). Null for captures completed before it was recorded.
ALTER TABLE captures ADD COLUMN final_url text;
