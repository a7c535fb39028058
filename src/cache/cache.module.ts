import { Global, Module } from '@nestjs/common';
import { CacheInvalidation } from './invalidation.service';

@Global()
@Module({ providers: [CacheInvalidation], exports: [CacheInvalidation] })
export class CacheModule {}
