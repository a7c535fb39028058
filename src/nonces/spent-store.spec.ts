import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSpentStore, RedisSpentStore } from './spent-store';

describe('LocalSpentStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spent-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('claims an id once until it expires', async () => {
    const store = new LocalSpentStore();
    const later = Date.now() + 60_000;
    expect(await store.claim('a', later)).toBe(true);
    expect(await store.claim('a', later)).toBe(false);
    expect(await store.claim('b', later)).toBe(true);
    expect(await store.claim('gone', Date.now() - 1)).toBe(false); // already expired: nothing to use
    expect(await store.claim('short', Date.now() + 20)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.claim('short', Date.now() + 60_000)).toBe(true); // its earlier claim had expired
    await store.close();
  });

  it('keeps what was spent across a restart, and forgets what expired', async () => {
    const first = LocalSpentStore.inDataDir(dir);
    expect(await first.claim('kept', Date.now() + 60_000)).toBe(true);
    expect(await first.claim('short', Date.now() + 50)).toBe(true);
    // No close(): a killed process leaves its appended lines behind.
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = LocalSpentStore.inDataDir(dir);
    expect(readFileSync(join(dir, 'spent'), 'utf8')).not.toContain('short'); // rewritten at start without what expired
    expect(await second.claim('kept', Date.now() + 60_000)).toBe(false);
    expect(await second.claim('short', Date.now() + 60_000)).toBe(true);
    await first.close();
    await second.close();
  });

  it('keeps a value once, replaces it, and keeps the latest across a restart', async () => {
    const first = LocalSpentStore.inDataDir(dir);
    const later = Date.now() + 60_000;
    expect(await first.putIfAbsent('idem', 'pending value with spaces', later)).toBeUndefined();
    expect(await first.putIfAbsent('idem', 'another', later)).toBe('pending value with spaces');
    await first.replace('idem', '{"verdict": true}', later);
    expect(await first.get('idem')).toBe('{"verdict": true}');
    expect(await first.get('nothing')).toBeUndefined();
    expect(await first.putIfAbsent('short', 'x', Date.now() + 20)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await first.get('short')).toBeUndefined();
    expect(await first.putIfAbsent('short', 'y', later)).toBeUndefined(); // the expired one is taken over
    // No close(): a killed process leaves its appended lines behind, the replaced value after the first.
    const second = LocalSpentStore.inDataDir(dir);
    expect(await second.get('idem')).toBe('{"verdict": true}');
    expect(await second.putIfAbsent('idem', 'again', later)).toBe('{"verdict": true}');
    expect(await second.claim('idem', later)).toBe(false);
    await first.close();
    await second.close();
  });

  it('reads past a last line cut short by a kill', async () => {
    writeFileSync(join(dir, 'spent'), `whole ${Date.now() + 60_000}\ncut `);
    const store = LocalSpentStore.inDataDir(dir);
    expect(await store.claim('whole', Date.now() + 60_000)).toBe(false);
    expect(await store.claim('cut', Date.now() + 60_000)).toBe(true);
    await store.close();
  });

  it('stays bounded: a sweep drops expired ids from memory and from the file', async () => {
    const store = LocalSpentStore.inDataDir(dir);
    for (let i = 0; i < 100; i++) await store.claim(`old${i}`, Date.now() + 10);
    await store.claim('live', Date.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    store.sweep();
    expect(store.size).toBe(1);
    expect(readFileSync(join(dir, 'spent'), 'utf8').trim().split('\n')).toHaveLength(1);
    await store.close();
  });
});

describe('RedisSpentStore while Redis does not answer', () => {
  it('claims in its fallback instead, once', async () => {
    const fallback = new LocalSpentStore();
    const store = new RedisSpentStore({ url: 'redis://127.0.0.1:1', cluster: false }, 'test:', fallback, 100); // nothing listens on port 1
    await store.ready();
    expect(await store.claim('id', Date.now() + 60_000)).toBe(true);
    expect(await store.claim('id', Date.now() + 60_000)).toBe(false);
    expect(fallback.size).toBe(1);
    await store.close();
  });
});
