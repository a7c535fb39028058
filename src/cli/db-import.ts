import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '../config/app-config';
import { readHeader } from '../prisma/sql-export';

const USAGE = `Loads a file written by \`npm run db:export\` into the PostgreSQL database at DATABASE_URL.

  DATABASE_URL=postgresql://… npm run db:import -- FILE

The database must be migrated to the same version as the export (\`npm run db:migrate\`) and hold
no users yet; the rows the migrations seeded (the plans) are replaced by the file's. All in one
transaction: it loads everything or nothing.`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { help: { type: 'boolean' } }, allowPositionals: true });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const file = positionals[0];
  const config = loadConfig(process.env);
  if (config.databaseUrl === undefined) throw new Error('set DATABASE_URL to the PostgreSQL database to load it into');
  let sql: string;
  try {
    sql = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file} (${(err as NodeJS.ErrnoException).code})`, { cause: err });
  }
  const header = readHeader(sql);
  if (header === undefined) throw new Error(`${file} is not a file written by npm run db:export`);

  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client
      .query<{ name: string }>(
        `SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1`,
      )
      .catch((err: Error) => {
        throw new Error(`the database is not migrated (${err.message}): run npm run db:migrate first`, { cause: err });
      });
    const applied = rows.map((r) => r.name).join(', ');
    if (applied !== header.migrations.join(', '))
      throw new Error(
        `the database's migrations differ from the export's: export and import with the same version, and run npm run db:migrate (database: ${applied || 'none'}; file: ${header.migrations.at(-1)})`,
      );
    const { rows: users } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM "User"');
    if (users[0].n > 0) throw new Error(`the database holds ${users[0].n} user(s) already: import into a new database`);
    const tables = header.tables.map((t) => `"${t.replaceAll('"', '""')}"`).join(', ');
    await client.query('BEGIN');
    try {
      await client.query(`TRUNCATE ${tables} CASCADE`);
      await client.query(sql);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`nothing was loaded: ${(err as Error).message}`, { cause: err });
    }
    const statements = sql.split('\n').filter((l) => l.startsWith('INSERT INTO ')).length;
    console.log(`Loaded ${file} into the PostgreSQL database: ${statements} rows of ${header.tables.length} tables.`);
  } finally {
    await client.end();
  }
}

main().catch((err: unknown) => {
  console.error(`Not imported: ${(err as Error).message}`);
  process.exit(1);
});
