import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { AuthRequirement } from '../../src/common/auth.decorators';
import { ERROR_STATUS, ErrorCode } from '../../src/common/errors/error-codes';
import { createAccount, startApp, TestApp } from '../utils/test-app';

interface Schema {
  readonly $ref?: string;
  readonly type?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly example?: unknown;
  readonly properties?: Record<string, Schema>;
  readonly items?: Schema;
  readonly allOf?: Schema[];
  readonly oneOf?: Schema[];
}
interface Header {
  readonly required?: boolean;
  readonly description?: string;
}
interface ResponseObject {
  readonly headers?: Record<string, Header | { $ref: string }>;
  readonly content?: Record<string, { schema?: Schema; example?: { statusCode?: number; error?: string } }>;
}
interface Operation {
  readonly 'x-gatehouse-auth'?: AuthRequirement;
  readonly security?: Array<Record<string, string[]>>;
  readonly responses: Record<string, ResponseObject>;
  readonly requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
}
interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    securitySchemes: Record<string, Record<string, unknown>>;
    schemas: Record<string, Schema>;
    headers: Record<string, Header>;
  };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const RESPONSE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
];
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

    it("carries Gatehouse's name, not Swagger's stock title", async () => {
      const res = await t.http.get('/docs').redirects(2);
      expect(res.text).toContain('<title>Gatehouse API</title>');
    });
  });

  describe('GET /docs-json', () => {
    it('is an OpenAPI 3 document with the API-key and JWT security schemes', () => {
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
      expect(doc.components.securitySchemes.jwt).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('marks a body optional where the route takes none: POST /api-keys/{id}/rotate', () => {
      expect(doc.paths['/api/v1/api-keys/{id}/rotate'].post.requestBody).toMatchObject({ required: false });
    });

    it('documents the /api/v1 operations and nothing of /health', () => {
      expect(operations.map((o) => o.name)).toEqual(
        expect.arrayContaining(['POST /api/v1/auth/login', 'GET /api/v1/public/ping', 'POST /api/v1/api-keys']),
      );
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
        // A route every member may call even before enrolling a second factor refuses nobody with 403.
        const auth = op['x-gatehouse-auth'];
        for (const status of auth?.method === 'jwt' && auth.whileEnrolling === true ? ['401', '429'] : ['401', '403', '429']) {
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

    it('marks the headers every answer carries as required, with descriptions a Markdown renderer keeps', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        for (const [status, response] of Object.entries(op.responses)) {
          for (const h of RESPONSE_HEADERS) {
            const declared = response.headers?.[h];
            const header =
              declared !== undefined && '$ref' in declared ? doc.components.headers[declared.$ref.split('/').pop()!] : declared;
            if (header?.required !== true) problems.push(`${name} ${status}: ${h} not required`);
            // Swagger UI renders descriptions as Markdown: "<limit>" would vanish as an HTML tag.
            if (!header?.description || /<[a-z]/i.test(header.description))
              problems.push(`${name} ${status}: ${h} description ${header?.description}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('documents 400 on every operation, and 413 and 415 on every operation that takes a body', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        const expected = op.requestBody === undefined ? ['400'] : ['400', '413', '415'];
        for (const status of expected) if (op.responses[status] === undefined) problems.push(`${name}: no ${status}`);
      }
      expect(problems).toEqual([]);
    });

    it('gives every error response an example body of its own status', () => {
      const problems: string[] = [];
      for (const { name, op } of operations) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const example = response.content?.['application/json']?.example;
          if (example?.statusCode !== Number(status) || ERROR_STATUS[example.error as ErrorCode] !== Number(status)) {
            problems.push(`${name} ${status}: ${JSON.stringify(example)}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('types whole numbers as integers', () => {
      const numbers = Object.entries(doc.components.schemas).flatMap(([schemaName, schema]) =>
        Object.entries(schema.properties ?? {})
          .filter(([, p]) => p.type === 'number')
          .map(([prop]) => `${schemaName}.${prop}`),
      );
      expect(numbers).toEqual([]);
    });

    it('puts no default on a PATCH body, whose absent fields keep their value', () => {
      const withDefault = operations
        .filter(({ name }) => name.startsWith('PATCH '))
        .flatMap(({ name, op }) => {
          const ref = op.requestBody?.content?.['application/json']?.schema?.$ref ?? '';
          const schema = doc.components.schemas[ref.split('/').pop()!];
          return Object.entries(schema?.properties ?? {})
            .filter(([, p]) => p.default !== undefined)
            .map(([prop]) => `${name}: ${prop}`);
        });
      expect(withDefault).toEqual([]);
    });

    it('answers the verify verdict as one of a valid and an invalid shape', () => {
      const schema = doc.paths['/api/v1/nonces/verify']?.post?.responses['200']?.content?.['application/json']?.schema;
      expect(schema?.oneOf?.map((s) => s.$ref)).toEqual([
        '#/components/schemas/ValidNonceVerdictDto',
        '#/components/schemas/InvalidNonceVerdictDto',
      ]);
    });

    it('has a create-key example that the API accepts', async () => {
      const properties = doc.components.schemas.CreateApiKeyDto.properties!;
      const example = Object.fromEntries(
        Object.entries(properties).flatMap(([prop, p]) => (p.example === undefined ? [] : [[prop, p.example]])),
      );
      expect(Object.keys(example)).toEqual(expect.arrayContaining(['name', 'expiresAt', 'allowedOrigins']));
      const account = await createAccount(t);
      const res = await t.http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`).send(example);
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 201, body: { allowedOrigins: example.allowedOrigins } });
    });

    it('passes Spectral with the OWASP API Security ruleset without an error on any request input', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const root = resolve(__dirname, '../..');
      const spectral = join(root, 'node_modules/.bin/spectral');
      // Exit code 1 means "errors found": the findings are on stdout either way.
      const { stdout } = await promisify(execFile)(spectral, ['lint', '-r', join(root, '.spectral.yaml'), '-f', 'json', '--quiet', file], {
        maxBuffer: 64 << 20,
      }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      const findings = JSON.parse(stdout) as Array<{ code: string; severity: number; path: string[] }>;
      expect(findings.length).toBeGreaterThan(0); // the linter ran (warnings remain on responses)
      const inputSchemas = new Set(
        operations
          .map(({ op }) => op.requestBody?.content?.['application/json']?.schema?.$ref?.split('/').pop())
          .filter((n) => n !== undefined),
      );
      const onInputs = findings
        .filter((f) => f.severity === 0)
        .filter(
          ({ path }) =>
            path.includes('requestBody') || path.includes('parameters') || (path[0] === 'components' && inputSchemas.has(path[2])),
        )
        .map((f) => `${f.code} ${f.path.join('.')}`);
      expect(onInputs).toEqual([]);
    }, 60_000);

    it('is the document committed in docs/openapi.json, and its types are dashboard/src/api/schema.d.ts (npm run openapi:client)', async () => {
      const root = resolve(__dirname, '../..');
      const committed = JSON.parse(readFileSync(join(root, 'docs/openapi.json'), 'utf8')) as unknown;
      // A difference here: run `npm run openapi:client` and commit what it writes.
      expect(doc).toEqual(committed);
      const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/openapi-client.js'), '--types', file], {
        maxBuffer: 64 << 20,
      });
      expect(stdout).toBe(readFileSync(join(root, 'dashboard/src/api/schema.d.ts'), 'utf8'));
    });

    it('takes a LoginDto as the body of POST /api/v1/auth/login', () => {
      const login = doc.paths['/api/v1/auth/login']?.post;
      expect(login?.requestBody?.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/LoginDto');
      expect(login?.['x-gatehouse-auth']).toEqual({ method: 'none' });
    });
  });
});
