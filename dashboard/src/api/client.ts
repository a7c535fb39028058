import createClient from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The API, typed from its own OpenAPI document (`npm run openapi:client` regenerates schema.d.ts):
 * paths, parameters, bodies and answers are checked at compile time.
 */
export function createApiClient(baseUrl = '', token?: () => string | undefined) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    onRequest({ request }) {
      const bearer = token?.();
      if (bearer !== undefined) request.headers.set('Authorization', `Bearer ${bearer}`);
      return request;
    },
  });
  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;
