import { committedMigrations } from './migrations';

/**
 * The lines of `sql` with a ";" that does not end a statement: in a comment, a string, a quoted
 * name or a dollar-quoted body. `prisma migrate deploy` on PostgreSQL runs a migration through
 * @prisma/adapter-pg's `executeScript`, which cuts the file at every ";" and sends the pieces one by
 * one: such a ";" cuts a statement in two, and the migration stops half applied. (The embedded
 * database applies the file whole, so only PostgreSQL would show it.)
 */
function strayedSemicolons(sql: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let inside: "'" | '"' | '--' | '/*' | '$$' | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    const two = sql.slice(i, i + 2);
    if (c === '\n') line++;
    if (inside === null) {
      if (c === "'" || c === '"') inside = c;
      else if (two === '--' || two === '/*' || two === '$$') [inside, i] = [two, i + 1];
    } else if (c === ';') {
      lines.push(line);
    } else if ((inside === '--' && c === '\n') || ((inside === "'" || inside === '"') && c === inside)) {
      inside = null; // a doubled quote ('it''s') closes and reopens: the same to this scan
    } else if ((inside === '/*' && two === '*/') || (inside === '$$' && two === '$$')) {
      [inside, i] = [null, i + 1];
    }
  }
  return lines;
}

describe('committed migrations', () => {
  it.each(committedMigrations().map((m) => [m.name, m.sql]))('%s has a ";" only where a statement ends', (_name, sql) => {
    expect(strayedSemicolons(sql)).toEqual([]);
  });

  it('are checked for a ";" in a comment, a string, a quoted name or a function body', () => {
    expect(strayedSemicolons('CREATE TABLE "A" ("id" TEXT);\n-- Indexes;\nCREATE INDEX "i" ON "A"("id");')).toEqual([2]);
    expect(strayedSemicolons('ALTER TABLE "A" ALTER COLUMN "x" SET DEFAULT \'a;b\';')).toEqual([1]);
    expect(strayedSemicolons('/* one;\n two */ SELECT 1;')).toEqual([1]);
    expect(strayedSemicolons('CREATE TABLE "a;b" ("id" TEXT);')).toEqual([1]);
    expect(strayedSemicolons('CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;')).toEqual([1]);
    expect(strayedSemicolons("-- it's fine\nSELECT 'it''s';\nSELECT 2;")).toEqual([]);
  });
});
