import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth.decorators';
import type { Reply } from '../common/request';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ServiceConfigDto } from './dto/service-config.dto';

/** The version in the package.json beside src/ (and dist/, where the build runs from). */
function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** How long browsers and proxies may keep the answer: it changes only with a restart. */
const MAX_AGE_SECONDS = 300;

@ApiTags('Public API')
@Controller('config')
export class ServiceConfigController {
  private readonly answer: ServiceConfigDto;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.answer = Object.freeze({
      signupOpen: config.signupOpen,
      emailEnabled: config.mail.smtpUrl !== undefined,
      version: packageVersion(),
    });
  }

  @Get()
  @Public()
  @ApiOperation({
    summary: 'What this deployment offers before sign-in: sign-up, e-mail, version (cacheable for 5 minutes)',
  })
  @ApiOkResponse({ type: ServiceConfigDto })
  get(@Res({ passthrough: true }) reply: Reply): ServiceConfigDto {
    void reply.header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`);
    return this.answer;
  }
}
