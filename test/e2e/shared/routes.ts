import { randomUUID } from 'node:crypto';
import type { AuthRequirement } from '../../../src/common/auth.decorators';
import type { TestApp } from '../../utils/test-app';

export interface DocumentedRoute {
  readonly method: string;
  readonly path: string;
  /** The template with every :param filled with a fresh UUID. */
  readonly url: string;
  readonly auth: AuthRequirement | undefined;
  /** True when the operation documents a request body. */
  readonly takesBody: boolean;
}

/** Every operation of the app's own OpenAPI document, with its declared authentication. */
export async function documentedRoutes(t: TestApp): Promise<DocumentedRoute[]> {
  const doc = (await t.http.get('/docs-json').expect(200)).body as {
    paths: Record<string, Record<string, { 'x-gatehouse-auth'?: AuthRequirement; requestBody?: object }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      url: path.replace(/\{[^}]+\}/g, () => randomUUID()),
      auth: op['x-gatehouse-auth'],
      takesBody: op.requestBody !== undefined,
    })),
  );
}
