import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { openApiApp } from '../../test/support/openapi-document.js';

/** Where the console's API types are written, from the project root. */
export const CONSOLE_API_TYPES_FILE = 'src/console/openapi-types.ts';

const HEADER = `// Generated from the API's OpenAPI document by openapi-typescript: do not edit.
// \`node --import tsx ops/render-console-types.ts\` rewrites it; test/unit/console/openapi-types.unit.spec.ts fails
// when it is out of step with the document.

`;

/**
 * The console's types of every operation: openapi-typescript's rendering of the document the API's route plugins
 * produce (built without NATS or Postgres, as the document checks build it).
 */
export async function renderConsoleApiTypes(): Promise<string> {
  const { app, doc } = await openApiApp();
  try {
    return HEADER + astToString(await openapiTS(doc as unknown as OpenAPI3));
  } finally {
    await app.close();
  }
}
