import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { JwtAuth, Public } from '../../src/common/auth.decorators';
import { declaredRoutes, routesOf } from '../../src/common/declared-routes';
import { startApp, TestApp } from '../utils/test-app';

/**
 * security.e2e-spec.ts checks the routes the OpenAPI document shows; this one checks every route
 * Nest registers, including those hidden from Swagger (@ApiExcludeEndpoint / @ApiExcludeController).
 */
describe('every registered route', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('declares its authentication (@Public, @ApiKeyAuth or @JwtAuth), on the handler or its controller', () => {
    const routes = declaredRoutes(t.app);
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((r) => r.declared === undefined).map((r) => `${r.controller.name}.${r.methodName}`)).toEqual([]);
    expect(routes.map((r) => `${r.controller.name}.${r.methodName}`)).toEqual(
      expect.arrayContaining(['HealthController.live', 'WebhooksController.create']),
    );
  });

  it('would catch a route that forgets, even one hidden from Swagger', () => {
    @ApiExcludeController()
    @Controller('forgotten')
    class ForgottenController {
      @Get() forgot() {}
      @Get('open') @Public() open() {}
    }
    @JwtAuth('OWNER')
    @Controller('covered')
    class CoveredController {
      @Get() byClass() {}
    }
    const undeclared = routesOf([ForgottenController, CoveredController]).filter((r) => r.declared === undefined);
    expect(undeclared.map((r) => `${r.controller.name}.${r.methodName}`)).toEqual(['ForgottenController.forgot']);
  });

  it('has its requirement in the Fastify route config, as the CORS hook reads it', async () => {
    const res = await t.http.options('/api/v1/webhooks').set('Origin', 'https://a.example').set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204); // a known route: its JWT requirement reached the hook
  });
});
