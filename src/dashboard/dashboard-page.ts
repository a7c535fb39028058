import { Injectable } from '@nestjs/common';
import { join } from 'node:path';
import { BuiltFile, sendBuilt } from '../common/built-file';
import type { Reply, Request } from '../common/request';
import { DASHBOARD_CSP, DASHBOARD_DIR } from './dashboard-pages';

/** The dashboard's one HTML page (index.html), under its strict CSP, for every page path and for a browser's unknown path. */
@Injectable()
export class DashboardPage {
  private readonly page = new BuiltFile(join(DASHBOARD_DIR, 'index.html'));

  get built(): boolean {
    return this.page.current() !== undefined;
  }

  /** Sends the page with `status`; false when the dashboard is not built. */
  send(req: Request, reply: Reply, status = 200): boolean {
    const version = this.page.current();
    if (version === undefined) return false;
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin')
      // Revalidated each time (a 304 when unchanged): a new build's assets are picked up at once.
      .header('cache-control', 'no-cache');
    sendBuilt(req, reply, version, status);
    return true;
  }
}
