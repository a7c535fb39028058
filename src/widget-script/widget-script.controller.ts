import { Controller, Get, Logger, OnModuleInit, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public, SkipRateLimit } from '../common/auth.decorators';
import { AppError } from '../common/errors/app-error';
import type { Reply, Request } from '../common/request';
import { BuiltFile, sendBuilt } from '../common/built-file';

/** Browsers and CDNs keep the script an hour; after that an If-None-Match revalidation costs a 304. */
export const WIDGET_SCRIPT_CACHE_CONTROL = 'public, max-age=3600';

const NOT_BUILT = 'The widget script is not built: `npm run build` (or `npm run build:widget`) writes dist/widget/gatehouse.js.';

/**
 * GET /widget/v1/gatehouse.js: the embeddable widget (docs/PROTECT-A-FORM.md), a static asset outside
 * /api/v1: no credential, not rate-limited, not in the OpenAPI document. The v1 in the path is the
 * widget's contract with customer pages (the data- attributes and events); a build that breaks it
 * gets a new path.
 */
@ApiExcludeController()
@SkipRateLimit()
@Public()
@Controller('widget/v1')
export class WidgetScriptController implements OnModuleInit {
  private readonly logger = new Logger(WidgetScriptController.name);

  constructor(private readonly script: BuiltFile) {}

  onModuleInit(): void {
    if (this.script.current() === undefined) this.logger.warn(`${NOT_BUILT} Until then GET /widget/v1/gatehouse.js answers 404.`);
  }

  @Get('gatehouse.js')
  serve(@Req() req: Request, @Res() reply: Reply): void {
    const version = this.script.current();
    if (version === undefined) throw new AppError('not_found', NOT_BUILT);
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', WIDGET_SCRIPT_CACHE_CONTROL)
      // Customer pages on any site load it; `crossorigin` script tags (error details) may too.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('access-control-allow-origin', '*');
    sendBuilt(req, reply, version);
  }
}
