import { withSettings } from './pglite-module';

const binary = (...parts: string[]) => Buffer.from(['\0asm', ...parts, 'tail'].join('\0'));

describe('withSettings', () => {
  it('rewrites each built-in argument in place, NUL-padded, leaving every other byte where it was', () => {
    const wasm = binary('shared_buffers=128MB', 'wal_buffers=4MB', 'work_mem=4MB');
    const out = withSettings(wasm, { shared_buffers: '8MB', wal_buffers: '1MB' });
    expect(out).toEqual(binary('shared_buffers=8MB\0\0', 'wal_buffers=1MB', 'work_mem=4MB'));
    expect(wasm).toEqual(binary('shared_buffers=128MB', 'wal_buffers=4MB', 'work_mem=4MB'));
  });

  it('changes nothing where an argument is missing, repeated or the new value would not fit', () => {
    expect(withSettings(binary('shared_buffers=128MB'), { shared_buffers: '8MB', wal_buffers: '1MB' })).toBeUndefined();
    expect(withSettings(binary('shared_buffers=128MB', 'shared_buffers=128MB'), { shared_buffers: '8MB' })).toBeUndefined();
    expect(withSettings(binary('shared_buffers=128MB'), { shared_buffers: '1024MB' })).toBeUndefined();
    expect(withSettings(binary('work_mem=4MB'), { work_mem: '1MB' })).toBeUndefined();
  });
});
