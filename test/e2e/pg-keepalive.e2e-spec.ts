import { execFile } from 'node:child_process';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source';
import { TEST_DATABASE_URL } from '../support/env';

/**
 * The service's PostgreSQL connections carry TCP keepalive (probes after 10 s idle), so a server
 * that vanishes mid-query fails the query instead of hanging it. The kernel's view of the socket
 * (`ss`) shows the keepalive timer: without the option it shows none.
 */
describe('PostgreSQL connections with TCP keepalive', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = new DataSource(
      dataSourceOptions(loadConfig({ DATABASE_URL: TEST_DATABASE_URL }), TEST_DATABASE_URL),
    );
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  it('arms the keepalive timer on a pool connection', async () => {
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    try {
      await client.query('SELECT 1');
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      const { stdout } = await promisify(execFile)('ss', [
        '-tno',
        'state',
        'established',
        'sport',
        '=',
        `:${socket.localPort}`,
      ]);
      // One line for the socket, its timer the keepalive one (e.g. `timer:(keepalive,9.8…,0)`).
      expect(stdout.trim().split('\n').slice(1)).toEqual([
        expect.stringContaining('timer:(keepalive,'),
      ]);
    } finally {
      client.release();
    }
  });
});
