import { mkdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

/** An insert of a Native block into a table (database.table), with its settings. */
export type NativeInsert = (
  table: string,
  bytes: Buffer,
  settings: Record<string, string>,
) => Promise<void>;

/** A string as a ClickHouse SQL literal. */
function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The embedded engine's Native insert: chDB's raw insert takes text formats only, so the block goes
 * to a file in `dir` that the engine reads (INSERT … SELECT FROM file(…, 'Native')), removed once
 * the insert has ended, whatever its outcome. The folder is emptied when the store opens: a file
 * left by a process that died holds a block whose insert did not end, which its job sends again.
 */
export function embeddedNativeInsert(
  dir: string,
  command: (sql: string) => Promise<unknown>,
): NativeInsert {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let sequence = 0;
  return async (table, bytes, settings) => {
    const file = path.join(dir, `${++sequence}.native`);
    await writeFile(file, bytes);
    try {
      const clause = Object.entries(settings)
        .map(([name, value]) => `${name} = ${sqlString(value)}`)
        .join(', ');
      await command(
        `INSERT INTO ${table} SELECT * FROM file(${sqlString(file)}, 'Native')${clause ? ` SETTINGS ${clause}` : ''}`,
      );
    } finally {
      await rm(file, { force: true });
    }
  };
}
