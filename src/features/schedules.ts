import { scheduleTools } from '../api/mcp/mcp-tools.js';
import { scheduleRoutes } from '../api/routes/schedules.js';
import { createSchedules } from '../application/schedules.js';
import type { ApiRuntime, Feature } from './feature.js';

/** Schedules: a URL captured on a cron (and watched, when asked); the scheduler role fires them. */
export function schedulesFeature(api: ApiRuntime): Feature {
  const schedules = createSchedules(api.data.ctx, api.data.policy);
  return { routes: [scheduleRoutes({ guard: api.guard, schedules })], mcpTools: scheduleTools({ schedules }) };
}
