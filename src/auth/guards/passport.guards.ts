import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { TokenExpiredError } from 'jsonwebtoken';
import { AppError } from '../../common/errors/app-error';
import type { Principal } from '../principal';
import { CHALLENGE } from '../challenges';

/** passport-headerapikey behind Nest's AuthGuard; every failure becomes 401 invalid_api_key. */
@Injectable()
export class ApiKeyAuthGuard extends AuthGuard('api-key') {
  override handleRequest<T = Principal>(err: unknown, user: T | false): T {
    if (err instanceof AppError) throw err.status === 401 ? err.withChallenge(CHALLENGE.apiKey) : err;
    if (err) throw err; // not a verdict on the key (e.g. the database failed): never a 401
    if (!user) throw new AppError('invalid_api_key').withChallenge(CHALLENGE.apiKey);
    return user;
  }
}

/** passport-jwt behind Nest's AuthGuard; maps jsonwebtoken's failures onto RFC 6750 answers. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<T = Principal>(err: unknown, user: T | false, info: unknown): T {
    if (err instanceof AppError) throw err.status === 401 ? err.withChallenge(CHALLENGE.invalidToken) : err;
    if (info instanceof TokenExpiredError) {
      throw new AppError('token_expired').withChallenge(CHALLENGE.expiredToken);
    }
    if (err) throw err; // not a verdict on the token (e.g. the database failed): never a 401
    if (!user) throw new AppError('invalid_token').withChallenge(CHALLENGE.invalidToken);
    return user;
  }
}
