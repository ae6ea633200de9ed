import { Logger } from '@nestjs/common';
import { QueryLogger } from './query-logger';

describe('QueryLogger', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs a failed query by its message and first SQL line, never its parameters', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    new QueryLogger().logQueryError(
      Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      '\n  SELECT *\n  FROM x WHERE ip = $1',
      ['203.0.113.7'],
    );
    expect(error).toHaveBeenCalledWith('query failed: relation "x" does not exist — SELECT *');
  });
});
