import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error';
import { errorBody, ERROR_CONTENT_TYPE } from './error-body';

/**
 * Answers what Node refuses before Fastify has a request or a reply — oversized headers, bytes that
 * are not HTTP, a request whose headers or body do not arrive in time (REQUEST_TIMEOUTS): raw HTTP
 * on the socket, with the documented body and a request id, but no rate-limit headers (no route, so
 * no counter).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('request_header_fields_too_large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout')
        : new AppError('validation_failed', 'The request is not valid HTTP.');
  const requestId = randomUUID();
  const body = errorBody(error, requestId);
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      `Content-Type: ${ERROR_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Fastify's refusals while routing — a path whose percent-encoding does not decode, a path
 * parameter over `maxParamLength` — go to the app's error handler (the exception filter), which
 * counts them per client IP and answers like every other error. Such a request skipped the
 * onRequest hooks and Fastify's request decorations, so both are made up for here.
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  req.user = null;
  req.attributedTo = null;
  req.rateLimit = null;
  req.endpoint = null;
  reply.header('x-request-id', req.id);
  req.server.errorHandler(appErrorOf(error), req, reply);
}

function appErrorOf(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('validation_failed', 'The request path is not valid percent-encoded UTF-8.', [
        { field: 'path', message: 'must be valid percent-encoded UTF-8' },
      ]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('validation_failed', 'A segment of the request path is too long.', [
        { field: 'path', message: 'has a parameter longer than 100 characters' },
      ]);
    default:
      return new AppError('internal_error');
  }
}
