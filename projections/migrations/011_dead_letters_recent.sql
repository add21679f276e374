-- The operators' dead-letter queue across tenants (GET /v1/admin/webhooks/dead-letters): newest first, a page at a
-- time by (dead_lettered_at, delivery_id), for all tenants or one.
CREATE INDEX webhook_dead_letters_recent ON webhook_dead_letters (dead_lettered_at DESC, delivery_id DESC);
CREATE INDEX webhook_dead_letters_tenant_recent ON webhook_dead_letters (tenant_id, dead_lettered_at DESC, delivery_id DESC);
