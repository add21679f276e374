import { adminWebhookRoutes, webhookRoutes } from '../api/routes/webhooks.js';
import { createWebhooks } from '../application/webhooks.js';
import type { ApiRuntime, Feature } from './feature.js';

/** Webhooks: a tenant's endpoints and their deliveries (the dispatcher role delivers), and the operators' view. */
export async function webhooksFeature(api: ApiRuntime): Promise<Feature> {
  const { guard, operator, data } = api;
  const webhooks = createWebhooks(data.ctx, {
    policy: data.policy,
    ca: await data.webhookCa(),
    secrets: await data.webhookSecrets(),
  });
  return { routes: [webhookRoutes({ guard, webhooks }), adminWebhookRoutes(operator, guard, webhooks)] };
}
