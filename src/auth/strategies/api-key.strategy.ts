import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ApiKeyAuthService } from '../../api-keys/api-key-auth.service';
import type { ApiKeyPrincipal } from '../../common/principal';
import { verifyWith } from './authenticate-with';

/**
 * `X-Api-Key` through passport-headerapikey. passReqToCallback stays false: with it, the library
 * passes `req` after `done`, while @nestjs/passport takes the last argument as `done`
 * (passport-headerapikey PR #17) and every bad key would hang or 500 instead of answering 401.
 * Only the header is read, never the query string.
 *
 * The strategy's verify is `verifyWith(validate)` instead of @nestjs/passport's async callback:
 * a cached key is then decided before `authenticate` returns (see authenticateWith).
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeyAuthService) {
    super({ header: 'X-Api-Key', prefix: '' }, false);
    this.verify = verifyWith((key: string) => this.validate(key));
  }

  validate(key: string): ApiKeyPrincipal | Promise<ApiKeyPrincipal> {
    return this.apiKeys.authenticate(key);
  }
}
