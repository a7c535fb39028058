import { Controller, Get, Logger, OnModuleInit, Param, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { Public, SkipRateLimit } from '../common/auth.decorators';
import { BuiltFile, sendBuilt } from '../common/built-file';
import { AppError } from '../common/errors/app-error';
import { ERROR_CONTENT_TYPE, errorBody } from '../common/errors/error-body';
import type { Reply, Request } from '../common/request';
import { DashboardPage } from './dashboard-page';
import { DASHBOARD_ASSET_ROUTE, DASHBOARD_DIR, DASHBOARD_PAGES } from './dashboard-pages';

const NOT_BUILT = 'The dashboard is not built: `npm run build` (or `npm run build:dashboard`) writes dist/web/.';

/** A build asset's name as Vite writes it (name-hash.ext): no path, no dot files. */
const ASSET_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|svg|png|woff2)$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
};

/**
 * The dashboard (dashboard/, docs/DASHBOARD.md): a single-page app served by the process that serves
 * its API, so it calls the API same-origin. Every page path answers index.html under a strict CSP;
 * assets have content hashes in their names and are cached for good. Static files: no credential,
 * not rate-limited, not in the OpenAPI document.
 */
@ApiExcludeController()
@SkipRateLimit()
@Public()
@Controller()
export class DashboardController implements OnModuleInit {
  private readonly logger = new Logger(DashboardController.name);
  private readonly assets = new Map<string, BuiltFile>();

  constructor(
    private readonly page: DashboardPage,
    private readonly adapter: HttpAdapterHost,
  ) {}

  /**
   * The page paths are Fastify routes of their own, outside Nest's router: the global /api/v1
   * prefix never meets them, so a page may share its path with an API resource (`/webhooks` is a
   * page, `/api/v1/webhooks` the API). Excluding a path from the prefix instead would take it off
   * every controller's route of that path, the API's included.
   */
  onModuleInit(): void {
    // An application context without a server (the CLI, `npm run account:create`) serves no pages.
    const http = this.adapter.httpAdapter as HttpAdapterHost['httpAdapter'] | undefined;
    if (http === undefined || http === null) return;
    if (!this.page.built) this.logger.warn(`${NOT_BUILT} Until then its pages answer 404.`);
    const fastify = http.getInstance<FastifyInstance>();
    for (const path of DASHBOARD_PAGES) fastify.get(`/${path}`, (req, reply) => this.servePage(req, reply));
  }

  private servePage(req: Request, reply: Reply): void {
    if (this.page.send(req, reply)) return;
    void reply
      .status(404)
      .type(ERROR_CONTENT_TYPE)
      .send(errorBody(new AppError('not_found', NOT_BUILT), req.id));
  }

  @Get(DASHBOARD_ASSET_ROUTE)
  serveAsset(@Param('file') file: string, @Req() req: Request, @Res() reply: Reply): void {
    const type = ASSET_NAME.exec(file)?.[1];
    const asset = type === undefined ? undefined : this.assetFile(file);
    const version = asset?.current();
    if (type === undefined || version === undefined) throw new AppError('not_found', 'No such dashboard asset.');
    reply.header('content-type', CONTENT_TYPES[type]).header('cache-control', 'public, max-age=31536000, immutable');
    sendBuilt(req, reply, version);
  }

  private assetFile(name: string): BuiltFile {
    let file = this.assets.get(name);
    if (file === undefined) {
      file = new BuiltFile(join(DASHBOARD_DIR, 'assets', name));
      // Only names a build wrote are remembered: a scan of made-up names cannot grow the map.
      if (file.current() !== undefined) this.assets.set(name, file);
    }
    return file;
  }
}
