import { AppError } from './app-error';
import { errorBody } from './error-body';

describe('errorBody', () => {
  it('is the documented body for an error with its default message', () => {
    expect(JSON.parse(errorBody(new AppError('rate_limit_exceeded'), 'req-1'))).toEqual({
      statusCode: 429,
      error: 'rate_limit_exceeded',
      message: 'Too many requests; retry after the number of seconds in Retry-After.',
      requestId: 'req-1',
    });
  });

  it('escapes the request id as JSON', () => {
    expect(JSON.parse(errorBody(new AppError('not_found'), 'a"b\\c')).requestId).toBe('a"b\\c');
  });

  it('carries a custom message, and details on every 400 (an empty list when there are none)', () => {
    expect(JSON.parse(errorBody(new AppError('invalid_token', 'Gone.'), 'r'))).toEqual({
      statusCode: 401,
      error: 'invalid_token',
      message: 'Gone.',
      requestId: 'r',
    });
    expect(JSON.parse(errorBody(new AppError('validation_failed'), 'r')).details).toEqual([]);
    const details = [{ field: 'name', message: 'must be a string' }];
    expect(JSON.parse(errorBody(new AppError('validation_failed', 'Bad.', details), 'r')).details).toEqual(details);
  });

  it('answers the same error the same way, whichever path serialised it', () => {
    const cached = errorBody(new AppError('invalid_api_key'), 'r');
    expect(errorBody(new AppError('invalid_api_key'), 'r')).toBe(cached);
    expect(JSON.parse(cached)).toEqual({
      statusCode: 401,
      error: 'invalid_api_key',
      message: 'The API key is unknown, revoked or expired.',
      requestId: 'r',
    });
  });
});
