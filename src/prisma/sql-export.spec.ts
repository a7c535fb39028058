import { exportHeader, readHeader } from './sql-export';

// The table order is checked where it matters, by importing into PostgreSQL (test/e2e/backup.e2e-spec.ts):
// its foreign keys refuse a row before the one it points to.
describe('the SQL export header', () => {
  it('reads back the migrations and tables it names, and nothing from another file', () => {
    const header = exportHeader(['20260101000000_init', '20260202000000_more'], ['Plan', 'Account']);
    expect(readHeader(`${header}\nINSERT INTO "Plan" SELECT 1;\n`)).toEqual({
      migrations: ['20260101000000_init', '20260202000000_more'],
      tables: ['Plan', 'Account'],
    });
    expect(readHeader('CREATE TABLE x (id int);\n')).toBeUndefined();
    expect(readHeader('-- Gatehouse data, but cut short\n')).toBeUndefined();
  });
});
