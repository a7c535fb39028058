import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { toAppError } from './app-exception.filter';

describe('toAppError', () => {
  it('passes an AppError through untouched, details and challenge included', () => {
    const original = new AppError('invalid_api_key').withChallenge('Bearer error="invalid_token"');
    expect(toAppError(original)).toBe(original);
  });

  it('answers an unknown route as not_found 404', () => {
    const error = toAppError(new NotFoundException('Cannot GET /api/v1/nope'));
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
    expect(error.message).not.toContain('/api/v1/nope');
  });

  it('answers a wrong method as not_found 404', () => {
    expect(toAppError(new HttpException('Method Not Allowed', 405))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers an oversized body as payload_too_large 413', () => {
    expect(toAppError(new PayloadTooLargeException())).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('answers a body that is not JSON as unsupported_media_type 415', () => {
    expect(toAppError(new UnsupportedMediaTypeException())).toMatchObject({ code: 'unsupported_media_type', status: 415 });
  });

  it('answers an unparsable body as validation_failed with a detail on the body', () => {
    const error = toAppError(new BadRequestException('Unexpected token } in JSON at position 7'));
    expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(error.details).toEqual([{ field: 'body', message: expect.any(String) }]);
    expect(error.message).not.toContain('Unexpected token');
  });

  it('keeps the status of other known HTTP errors', () => {
    expect(toAppError(new ForbiddenException())).toMatchObject({ code: 'insufficient_permissions', status: 403 });
    expect(toAppError(new ConflictException())).toMatchObject({ code: 'conflict', status: 409 });
    expect(toAppError(new HttpException('too big', 431))).toMatchObject({ code: 'request_header_fields_too_large', status: 431 });
  });

  it('answers an HTTP error without a documented code as internal_error 500', () => {
    expect(toAppError(new HttpException("I'm a teapot", 418))).toMatchObject({ code: 'internal_error', status: 500 });
    expect(toAppError(new InternalServerErrorException('db down'))).toMatchObject({ code: 'internal_error', status: 500 });
  });

  it('answers any other error as internal_error 500 without leaking its message', () => {
    const secret = 'connect ECONNREFUSED postgres://admin:hunter2@10.0.0.5/gatehouse';
    const error = toAppError(new Error(secret));
    expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('ECONNREFUSED');
    expect(error.details).toBeUndefined();
  });

  it('copes with thrown values that are not errors', () => {
    for (const thrown of ['boom', null, undefined, 42, { status: 404 }]) {
      expect(toAppError(thrown)).toMatchObject({ code: 'internal_error', status: 500 });
    }
  });
});
