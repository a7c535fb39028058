it('loads', async () => { const a = require('argon2'); console.log(typeof a.hash); const h = await a.hash('x'); expect(h).toMatch(/argon2id/); });
