import { usageTools } from '../api/mcp/mcp-tools.js';
import { adminKeyRoutes } from '../api/routes/admin-keys.js';
import { tenancyRoutes } from '../api/routes/tenancy.js';
import { accountUsage, accountUsageDaily } from '../application/account-usage.js';
import { createApiKeys } from '../application/api-keys.js';
import { createTenantAdministration } from '../application/tenant-administration.js';
import type { ApiRuntime, Feature } from './feature.js';

/** Tenancy and keys: the operators' keys, tiers and quotas, and each tenant's usage. */
export function tenancyFeature(api: ApiRuntime): Feature {
  const { guard, operator } = api;
  const { ctx } = api.data;
  const usage = (tenantId: string) => accountUsage(ctx, tenantId);
  return {
    routes: [
      adminKeyRoutes(operator, createApiKeys(ctx)),
      tenancyRoutes({
        guard,
        operator,
        usage,
        usageDaily: (tenantId, period) => accountUsageDaily(ctx, tenantId, period),
        tenants: createTenantAdministration(ctx),
      }),
    ],
    mcpTools: usageTools({ usage }),
  };
}
