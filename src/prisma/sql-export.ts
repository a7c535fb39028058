/** The SQL file `npm run db:export` writes and `npm run db:import` reads: its header and table order. */

/** Anything that answers a query, PGlite or a pg client alike. */
interface Queryable {
  query<T>(sql: string): Promise<{ rows: T[] }>;
}

/**
 * The application's tables in schema public (not Prisma's bookkeeping), each after every table
 * its foreign keys point to.
 */
export async function tablesInOrder(db: Queryable): Promise<string[]> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND relname <> '_prisma_migrations' ORDER BY 1`,
  );
  const { rows: edges } = await db.query<{ child: string; parent: string }>(
    `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c
     WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND c.conrelid <> c.confrelid`,
  );
  const unquote = (name: string) => (name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name);
  const parents = new Map(tables.map((t) => [t.name, new Set<string>()]));
  for (const e of edges) parents.get(unquote(e.child))?.add(unquote(e.parent));
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table)) return;
    if (path.has(table)) throw new Error(`foreign keys form a cycle through ${table}`);
    path.add(table);
    for (const parent of parents.get(table) ?? []) visit(parent, path);
    path.delete(table);
    ordered.push(table);
  };
  for (const { name } of tables) visit(name, new Set());
  return ordered;
}

const MIGRATION = '-- migration: ';
const TABLES = '-- tables: ';

export function exportHeader(migrations: string[], tables: string[]): string {
  return [
    '-- Gatehouse data, exported from the embedded database by `npm run db:export`; load it with `npm run db:import`.',
    ...migrations.map((m) => `${MIGRATION}${m}`),
    `${TABLES}${JSON.stringify(tables)}`,
  ].join('\n');
}

/** The migrations and tables a file's header names; undefined when it has no such header. */
export function readHeader(sql: string): { migrations: string[]; tables: string[] } | undefined {
  const lines = sql.slice(0, 100_000).split('\n');
  if (!lines[0]?.startsWith('-- Gatehouse data')) return undefined;
  const migrations = lines.filter((l) => l.startsWith(MIGRATION)).map((l) => l.slice(MIGRATION.length));
  const tables = lines.find((l) => l.startsWith(TABLES));
  if (tables === undefined) return undefined;
  return { migrations, tables: JSON.parse(tables.slice(TABLES.length)) as string[] };
}
