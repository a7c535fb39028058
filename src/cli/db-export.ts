import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { IN_MEMORY, loadConfig } from '../config/app-config';
import { writeWhole } from '../prisma/embedded-backup';
import { embeddedPaths, lockDataDir } from '../prisma/embedded-directory';
import { pgliteModule } from '../prisma/pglite-module';
import { exportHeader, tablesInOrder } from '../prisma/sql-export';

const USAGE = `Writes the embedded database's data (DATA_DIR, service stopped) as SQL, to move to PostgreSQL.

  npm run db:export -- FILE

FILE holds one INSERT per row, tables in the order their foreign keys need, for
\`npm run db:import\` into a PostgreSQL database migrated to the same version. Not exported: the
webhook queue (deliveries not yet made) and the migrations' bookkeeping.`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { help: { type: 'boolean' } }, allowPositionals: true });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const file = positionals[0];
  const config = loadConfig(process.env);
  if (config.databaseUrl !== undefined) throw new Error('DATABASE_URL is set: this exports the embedded database (DATA_DIR)');
  if (config.dataDir === IN_MEMORY) throw new Error(`DATA_DIR is ${IN_MEMORY}: nothing is kept to export`);
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (err) {
    throw new Error(`stop the service first. ${(err as Error).message}`, { cause: err });
  }
  try {
    const { database } = embeddedPaths(config.dataDir);
    if (!existsSync(database)) throw new Error(`${config.dataDir} holds no embedded database (no ${database})`);
    const pglite = new PGlite(database, { wasmModule: await pgliteModule() });
    try {
      const { rows: migrations } = await pglite.query<{ name: string }>(
        `SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1`,
      );
      const tables = await tablesInOrder(pglite);
      const lines = [
        exportHeader(
          migrations.map((m) => m.name),
          tables,
        ),
      ];
      let count = 0;
      for (const table of tables) {
        const quoted = `"${table.replaceAll('"', '""')}"`;
        // PostgreSQL writes each statement: a row as JSON, read back into the table's own row type.
        const { rows } = await pglite.query<{ sql: string }>(
          `SELECT format('INSERT INTO %I SELECT * FROM json_populate_record(NULL::%I, %L);', $1::text, $1::text, row_to_json(t)::text) AS sql FROM ${quoted} t`,
          [table],
        );
        lines.push(...rows.map((r) => r.sql));
        count += rows.length;
      }
      writeWhole(file, Buffer.from(lines.join('\n') + '\n'));
      console.log(`Wrote ${file}: ${count} rows of ${tables.length} tables, at migration ${migrations.at(-1)?.name}.`);
    } finally {
      await pglite.close();
    }
  } finally {
    release();
  }
}

main().catch((err: unknown) => {
  console.error(`Not exported: ${(err as Error).message}`);
  process.exit(1);
});
