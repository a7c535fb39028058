import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { HeaderObject, OperationObject, ReferenceObject, RequestBodyObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { API_KEY_SECURITY, JWT_SECURITY } from '../common/auth.decorators';
import { DEFAULT_MESSAGES, ERROR_STATUS, ErrorCode } from '../common/errors/error-codes';

const integer = (minimum?: number) => ({ type: 'integer' as const, ...(minimum === undefined ? {} : { minimum }) });

/** Headers on every /api/v1 answer (docs/API.md, "Rate limits"); Swagger UI renders descriptions as Markdown. */
const ALWAYS: Record<string, HeaderObject> = {
  'X-Request-Id': { required: true, description: 'Request id (a sane client-sent one is kept).', schema: { type: 'string' } },
  'X-RateLimit-Limit': { required: true, description: 'Requests allowed in the window.', schema: integer(0) },
  'X-RateLimit-Remaining': { required: true, description: 'Requests left in the window after this one.', schema: integer(0) },
  'X-RateLimit-Reset': { required: true, description: 'Whole seconds until the window resets.', schema: integer(0) },
  'RateLimit-Policy': {
    required: true,
    description: 'IETF draft-ietf-httpapi-ratelimit-headers-09, e.g. `"default";q=600;w=60` (q: the limit, w: the window in seconds).',
    schema: { type: 'string' },
  },
  RateLimit: {
    required: true,
    description: 'IETF draft-ietf-httpapi-ratelimit-headers-09, e.g. `"default";r=599;t=42` (r: remaining, t: seconds until the reset).',
    schema: { type: 'string' },
  },
};
const RETRY_AFTER: HeaderObject = { required: true, description: 'Whole seconds to wait, >= 1.', schema: integer(1) };
const WWW_AUTHENTICATE: HeaderObject = { required: true, description: 'RFC 6750 challenge.', schema: { type: 'string' } };

/** Answers any operation can give, beside those its decorators declare. */
const EVERY_OPERATION: Array<[number, string]> = [
  [400, 'validation_failed — a malformed body, query or path, or an unknown field or query parameter; see details'],
  [503, 'service_unavailable — the database is unreachable or too busy, or the instance is shutting down; see Retry-After'],
];
const WITH_BODY: Array<[number, string]> = [
  [413, 'payload_too_large — the body is over 64 KiB'],
  [415, 'unsupported_media_type — the body is not application/json'],
];

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponseDto' };

/** An error response's example: the first error code its description names, else the status's usual one. */
function exampleFor(status: number, description: string): Record<string, unknown> {
  const named = Object.keys(ERROR_STATUS).find((code) => ERROR_STATUS[code as ErrorCode] === status && description.includes(code)) as
    ErrorCode | undefined;
  const code = named ?? (Object.keys(ERROR_STATUS) as ErrorCode[]).find((c) => ERROR_STATUS[c] === status)!;
  return {
    statusCode: status,
    error: code,
    message: DEFAULT_MESSAGES[code],
    requestId: '3f1c0c1e-8c1b-4a43-9a5e-2f7a1d0b9c11',
    ...(status === 400 ? { details: [{ field: 'name', message: 'name must be longer than or equal to 1 characters' }] } : {}),
  };
}

function errorResponse(description: string): ResponseObject {
  return { description, content: { 'application/json': { schema: ERROR_SCHEMA } } };
}

/**
 * Completes what the route decorators declare, the same way for every operation: the answers any
 * route can give (400 for a malformed path or query, 413/415 where there is a body, 503), the
 * headers every answer carries, and an example body per error status.
 */
function complete(op: OperationObject): void {
  const responses = op.responses as Record<string, ResponseObject>;
  const extra = op.requestBody === undefined ? EVERY_OPERATION : [...EVERY_OPERATION, ...WITH_BODY];
  for (const [status, description] of extra) responses[status] ??= errorResponse(description);
  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const names = [
      ...Object.keys(ALWAYS),
      ...(code === 429 || code === 503 ? ['Retry-After'] : []),
      ...(code === 401 ? ['WWW-Authenticate'] : []),
    ];
    response.headers = {
      ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])),
      ...response.headers,
    };
    const json = response.content?.['application/json'];
    if (code >= 400 && json !== undefined) json.example = exampleFor(code, response.description);
  }
}

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gatehouse')
    .setDescription(
      'Access control for the bot-protection API. Dashboard routes take `Authorization: Bearer <JWT>` from ' +
        '`POST /api/v1/auth/login`; widget and server routes take `X-Api-Key`. Every `/api/v1` response carries ' +
        'the rate-limit headers; errors share one body: `{statusCode, error, message, requestId, details?}`.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key from the dashboard.' }, API_KEY_SECURITY)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from POST /api/v1/auth/login.' },
      JWT_SECURITY,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    headers: { ...ALWAYS, 'Retry-After': RETRY_AFTER, 'WWW-Authenticate': WWW_AUTHENTICATE },
  };
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      if (typeof op === 'object' && op !== null && 'responses' in op) complete(op as OperationObject);
    }
    if (item.patch !== undefined) withoutDefaults(document, item.patch);
  }
  boundFormats(document);
  return document;
}

/** The longest text each string format can be: a UUID is 36 characters, an ISO 8601 time at most 35. */
const FORMAT_MAX_LENGTH: Record<string, number> = { uuid: 36, 'date-time': 35 };

/**
 * Bounds that follow from a schema's format, stated so that clients and linters (OWASP API4:
 * unrestricted resource consumption) see them: strings of a fixed format get their longest length,
 * integers their width (every integer of this API fits 32 bits).
 */
function boundFormats(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(boundFormats);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as SchemaObject;
  if (
    schema.type === 'string' &&
    schema.format !== undefined &&
    schema.maxLength === undefined &&
    FORMAT_MAX_LENGTH[schema.format] !== undefined
  ) {
    schema.maxLength = FORMAT_MAX_LENGTH[schema.format];
  }
  if (schema.type === 'integer' && schema.format === undefined) schema.format = 'int32';
  for (const value of Object.values(node)) boundFormats(value);
}

/** A PATCH keeps the current value of an absent field: a `default` (inherited from the create DTO) would say otherwise. */
function withoutDefaults(document: OpenAPIObject, op: OperationObject): void {
  const ref = (op.requestBody as RequestBodyObject | undefined)?.content['application/json']?.schema as ReferenceObject | undefined;
  const schema =
    ref?.$ref === undefined ? undefined : (document.components?.schemas?.[ref.$ref.split('/').pop()!] as SchemaObject | undefined);
  for (const property of Object.values(schema?.properties ?? {})) delete (property as SchemaObject).default;
}
