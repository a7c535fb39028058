import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DASHBOARD_PAGES } from './dashboard-pages';

describe('DASHBOARD_PAGES', () => {
  it('lists every page of the dashboard router, so a reload or an e-mailed link opens each one', () => {
    const routes = readFileSync(resolve(__dirname, '../../dashboard/src/routes.tsx'), 'utf8');
    const paths = [...routes.matchAll(/path: '\/([^']*)'/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(5);
    expect([...paths].sort()).toEqual([...DASHBOARD_PAGES].sort());
  });
});
