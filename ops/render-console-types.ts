/** Rewrites the console's API types (src/console/openapi-types.ts) from the API's OpenAPI document. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';
import { CONSOLE_API_TYPES_FILE, renderConsoleApiTypes } from './openapi/console-api-types.js';

writeFileSync(join(projectRoot, CONSOLE_API_TYPES_FILE), await renderConsoleApiTypes());
