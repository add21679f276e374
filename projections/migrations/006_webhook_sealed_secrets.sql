-- Webhook secrets are sealed (AES-256-GCM, one key per webhook in the KV bucket 'webhook-keys'); the ledger
-- and this table hold only the sealed form. `secret` stays for webhooks registered before, in the clear.
ALTER TABLE webhooks ADD COLUMN sealed_secret text;
