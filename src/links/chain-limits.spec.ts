import type { QueryRunner } from 'typeorm';
import * as migration from '../database/migrations/1764020000000-link-chains';
import { CHAIN_CYCLE_STATE, CHAIN_DEPTH_STATE, MAX_CHAIN_DEPTH } from './chain-limits';

/** The statements the chain migration's `up` runs, recorded instead of run. */
async function migrationSql(): Promise<string> {
  const statements: string[] = [];
  const runner = {
    query: (sql: string) => {
      statements.push(sql);
      return Promise.resolve([]);
    },
  } as unknown as QueryRunner;
  await new migration.LinkChains1764020000000().up(runner);
  return statements.join('\n');
}

describe('chain limits', () => {
  it("are the chain migration's literals", () => {
    expect([MAX_CHAIN_DEPTH, CHAIN_CYCLE_STATE, CHAIN_DEPTH_STATE]).toEqual([
      migration.MAX_CHAIN_DEPTH,
      migration.CHAIN_CYCLE_STATE,
      migration.CHAIN_DEPTH_STATE,
    ]);
  });

  it('are what the chain trigger refuses with', async () => {
    const sql = (await migrationSql()).replace(/\s+/g, ' ');
    expect(sql).toContain(
      `RAISE EXCEPTION 'link % cannot be its own ancestor', NEW.svc_id USING ERRCODE = '${CHAIN_CYCLE_STATE}';`,
    );
    expect(sql).toContain(
      `IF up_depth >= ${MAX_CHAIN_DEPTH} THEN RAISE EXCEPTION 'parent % is % generations deep', NEW.parent, up_depth USING ERRCODE = '${CHAIN_DEPTH_STATE}';`,
    );
  });
});
