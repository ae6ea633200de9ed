import { Logger } from '@nestjs/common';
import { QueryLogger } from './query-logger';

describe('QueryLogger', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs a failed query by its message and first SQL line, never its parameters', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    new QueryLogger().logQueryError(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }), '\n  SELECT *\n  FROM x WHERE ip = $1', [
      '203.0.113.7',
    ]);
    expect(error).toHaveBeenCalledWith('query failed: relation "x" does not exist — SELECT *');
  });

  it('leaves out the stored click a retried click batch meets, and only that unique violation', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const logger = new QueryLogger();
    logger.logQueryError(Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'clicks_y2026m11_pkey' }), 'WITH inserted AS (');
    expect(error).not.toHaveBeenCalled();
    logger.logQueryError(Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'uq_links_svc_id' }), 'INSERT INTO links');
    expect(error).toHaveBeenCalledTimes(1);
  });
});
