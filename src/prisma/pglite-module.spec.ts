import { applySettings } from './pglite-module';

const binary = (...parts: string[]) => Buffer.from(['\0asm', ...parts, 'tail'].join('\0'));

describe('applySettings', () => {
  it('rewrites each built-in argument in place, NUL-padded, leaving every other byte where it was', () => {
    const wasm = binary('shared_buffers=128MB', 'wal_buffers=4MB', 'work_mem=4MB');
    expect(applySettings(wasm, { shared_buffers: '8MB', wal_buffers: '1MB' })).toBe(true);
    expect(wasm).toEqual(binary('shared_buffers=8MB\0\0', 'wal_buffers=1MB', 'work_mem=4MB'));
  });

  it('changes nothing where an argument is missing, repeated or the new value would not fit', () => {
    for (const [parts, settings] of [
      [['shared_buffers=128MB'], { shared_buffers: '8MB', wal_buffers: '1MB' }],
      [['shared_buffers=128MB', 'shared_buffers=128MB'], { shared_buffers: '8MB' }],
      [['shared_buffers=128MB', 'wal_buffers=4MB'], { wal_buffers: '1MB', shared_buffers: '1024MB' }],
      [['work_mem=4MB'], { work_mem: '1MB' }],
    ] as const) {
      const wasm = binary(...parts);
      expect(applySettings(wasm, settings)).toBe(false);
      expect(wasm).toEqual(binary(...parts));
    }
  });
});
