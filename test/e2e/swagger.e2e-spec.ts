import type { AuthRequirement } from '../../src/auth/auth.decorators';
import { startApp, TestApp } from '../utils/test-app';

interface Schema {
  readonly $ref?: string;
  readonly description?: string;
  readonly properties?: Record<string, Schema>;
  readonly allOf?: Schema[];
}
interface ResponseObject {
  readonly headers?: Record<string, unknown>;
  readonly content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  readonly 'x-gatehouse-auth'?: AuthRequirement;
  readonly security?: Array<Record<string, string[]>>;
  readonly responses: Record<string, ResponseObject>;
  readonly requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { securitySchemes: Record<string, Record<string, unknown>>; schemas: Record<string, Schema> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const RESPONSE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id'];
const ERROR_REF = '#/components/schemas/ErrorResponseDto';

describe('OpenAPI', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  let operations: Array<{ name: string; op: Operation }>;

  beforeAll(async () => {
    t = await startApp();
    const res = await t.http.get('/docs-json');
    expect(res.status).toBe(200);
    doc = res.body;
    operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
      );
  }, 30_000);
  afterAll(() => t.close());

  describe('GET /docs', () => {
    it('serves the Swagger UI as HTML', async () => {
      const res = await t.http.get('/docs').redirects(2);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/swagger/i);
    });
  });

  describe('GET /docs-json', () => {
    it('is an OpenAPI 3 document with the API-key and JWT security schemes', () => {
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
      expect(doc.components.securitySchemes.jwt).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('documents the /api/v1 operations and nothing of /health', () => {
      expect(operations.map((o) => o.name)).toEqual(expect.arrayContaining(['POST /api/v1/auth/login', 'GET /api/v1/public/ping', 'POST /api/v1/api-keys']));
      expect(Object.keys(doc.paths).filter((p) => p.includes('health'))).toEqual([]);
    });

    it('declares on every operation its authentication and the matching security requirement', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        const auth = op['x-gatehouse-auth'];
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        if (auth === undefined) problems.push(`${name}: no x-gatehouse-auth`);
        else if (auth.method === 'none' && schemes.length > 0) problems.push(`${name}: public but requires ${schemes.join(', ')}`);
        else if (auth.method === 'apiKey' && !schemes.includes('apiKey')) problems.push(`${name}: apiKey route without apiKey security`);
        else if (auth.method === 'jwt' && !schemes.includes('jwt')) problems.push(`${name}: jwt route without jwt security`);
      }
      expect(problems).toEqual([]);
    });

    it('declares the rate-limit headers and X-Request-Id on every response, and Retry-After on 429', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        for (const [status, response] of Object.entries(op.responses)) {
          const headers = Object.keys(response.headers ?? {});
          const expected = status === '429' ? [...RESPONSE_HEADERS, 'Retry-After'] : RESPONSE_HEADERS;
          for (const h of expected) if (!headers.includes(h)) problems.push(`${name} ${status}: no ${h}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('declares 401, 403 and 429 with the ErrorResponseDto body on every protected operation', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        if (op['x-gatehouse-auth']?.method === 'none') continue;
        for (const status of ['401', '403', '429']) {
          const schema = op.responses[status]?.content?.['application/json']?.schema;
          if (schema?.$ref !== ERROR_REF) problems.push(`${name} ${status}: ${JSON.stringify(schema ?? 'missing')}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('declares 400 with the ErrorResponseDto body on every operation: any of them can refuse a query parameter', () => {
      const problems = operations
        .filter(({ op }) => op.responses['400']?.content?.['application/json']?.schema?.$ref !== ERROR_REF)
        .map(({ name }) => name);
      expect(problems).toEqual([]);
    });

    it('declares 429 with the ErrorResponseDto body on public operations too', () => {
      const publicOps = operations.filter(({ op }) => op['x-gatehouse-auth']?.method === 'none');
      expect(publicOps.length).toBeGreaterThan(0);
      for (const { name, op } of publicOps) {
        expect({ name, ref: op.responses['429']?.content?.['application/json']?.schema?.$ref }).toEqual({ name, ref: ERROR_REF });
      }
    });

    it('describes every property of every schema', () => {
      const undescribed: string[] = [];
      for (const [schemaName, schema] of Object.entries(doc.components.schemas)) {
        for (const [prop, propSchema] of Object.entries(schema.properties ?? {})) {
          const description = propSchema.description ?? propSchema.allOf?.find((s) => s.description)?.description;
          if (!description?.trim()) undescribed.push(`${schemaName}.${prop}`);
        }
      }
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ErrorResponseDto', 'LoginDto', 'CreateApiKeyDto']));
      expect(undescribed).toEqual([]);
    });

    it('takes a LoginDto as the body of POST /api/v1/auth/login', () => {
      const login = doc.paths['/api/v1/auth/login']?.post;
      expect(login?.requestBody?.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/LoginDto');
      expect(login?.['x-gatehouse-auth']).toEqual({ method: 'none' });
    });
  });
});
