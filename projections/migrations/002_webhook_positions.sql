-- Webhooks as of a ledger position (spec 4.13): the webhook feeder fires a capture outcome to the webhooks
-- registered before it and not deleted before it. Commit sequences order a tenant's events exactly, where
-- timestamps from several processes might not. Values come from the stored events (rebuildable).
ALTER TABLE webhooks ADD COLUMN registered_seq bigint;
ALTER TABLE webhooks ADD COLUMN deleted_seq bigint;
CREATE INDEX webhooks_tenant_all ON webhooks (tenant_id, registered_seq);

-- When the dispatcher will try again after a failed attempt (operators' delivery listing).
ALTER TABLE webhook_deliveries ADD COLUMN next_attempt_at timestamptz;
CREATE INDEX webhook_dead_letters_webhook ON webhook_dead_letters (webhook_id, dead_lettered_at DESC);
