import { randomUUID } from 'node:crypto';
import { createAccount, expectError, startApp, TestAccount, TestApp } from '../utils/test-app';

/**
 * A change and its audit event commit together: when the event cannot be written, the change is
 * not made either. The database refuses the events of requests whose X-Request-Id starts with a
 * marker (a trigger, dropped afterwards), so the failure is a real one of the audit write.
 */
describe('a change whose audit event cannot be written', () => {
  let t: TestApp;
  let account: TestAccount;
  const run = randomUUID().replaceAll('-', '');
  const marker = `refuse-audit-${run}`;
  const trigger = `refuse_audit_${run}`;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    await t.prisma.$executeRawUnsafe(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."requestId" LIKE '${marker}%' THEN RAISE EXCEPTION 'audit write refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await t.prisma.$executeRawUnsafe(`CREATE TRIGGER ${trigger} BEFORE INSERT ON "AuditEvent" FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
  }, 60_000);
  afterAll(async () => {
    await t.prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS ${trigger} ON "AuditEvent"`);
    await t.prisma.$executeRawUnsafe(`DROP FUNCTION IF EXISTS ${trigger}()`);
    await t.close();
  });

  const asOwner = (req: ReturnType<TestApp['http']['get']>, requestId = `${marker}-${randomUUID()}`) =>
    req.set('Authorization', `Bearer ${account.owner.token}`).set('X-Request-Id', requestId);
  const auditedAs = async (requestId: string) => (await t.prisma.auditEvent.count({ where: { requestId } })) > 0;

  it('creates no API key', async () => {
    const name = `never created ${run}`;
    expectError(await asOwner(t.http.post('/api/v1/api-keys')).send({ name }), 500, 'internal_error');
    const keys = await asOwner(t.http.get('/api/v1/api-keys'), `list-${run}`).expect(200);
    expect(keys.body.data.map((k: { name: string }) => k.name)).not.toContain(name);
    expect(await t.prisma.apiKey.count({ where: { name } })).toBe(0);
  });

  it('leaves a key it was to revoke working', async () => {
    const { id, key } = await account.createKey();
    expectError(await asOwner(t.http.delete(`/api/v1/api-keys/${id}`)), 500, 'internal_error');
    await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id } })).status).toBe('active');
  });

  it('creates no invitation', async () => {
    const email = `never-invited-${run}@example.com`;
    expectError(await asOwner(t.http.post('/api/v1/team/invitations')).send({ email, role: 'DEVELOPER' }), 500, 'internal_error');
    const pending = await asOwner(t.http.get('/api/v1/team/invitations'), `pending-${run}`).expect(200);
    expect(pending.body.data.map((i: { email: string }) => i.email)).not.toContain(email);
    expect(await t.prisma.invitation.count({ where: { email } })).toBe(0);
  });

  it('changes no role', async () => {
    const member = await account.addUser('DEVELOPER');
    expectError(await asOwner(t.http.patch(`/api/v1/team/members/${member.id}`)).send({ role: 'ADMIN' }), 500, 'internal_error');
    expect((await t.prisma.user.findUniqueOrThrow({ where: { id: member.id } })).role).toBe('DEVELOPER');
  });

  it('writes the change and its event when the event can be written', async () => {
    const requestId = `audited-${run}`;
    await asOwner(t.http.post('/api/v1/api-keys'), requestId)
      .send({ name: `created ${run}` })
      .expect(201);
    expect(await auditedAs(requestId)).toBe(true);
    expect(await t.prisma.apiKey.count({ where: { name: `created ${run}` } })).toBe(1);
  });
});
