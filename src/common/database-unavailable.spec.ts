import { QueryFailedError } from 'typeorm';
import { ErrorCode } from './app-error';
import { DatabaseUnavailableError, isDatabaseUnreachable } from './database-unavailable';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function failedQuery(driverError: Error): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], driverError);
}

describe('isDatabaseUnreachable', () => {
  it('recognises a server out of reach, by socket error, SQLSTATE or the driver’s message', () => {
    const reachable = [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      failedQuery(withCode('terminating connection due to administrator command', '57P01')),
      failedQuery(withCode('the database system is shutting down', '57P03')),
      failedQuery(withCode('the database system is starting up', '57P03')),
      failedQuery(withCode('connection failure', '08006')),
      failedQuery(withCode('sorry, too many clients already', '53300')),
      failedQuery(new Error('Connection terminated unexpectedly')),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
      new Error('wrapped', { cause: withCode('connect ETIMEDOUT', 'ETIMEDOUT') }),
    ];
    expect(reachable.map((error) => isDatabaseUnreachable(error))).toEqual(
      reachable.map(() => true),
    );
  });

  it('leaves errors of the statement itself, and anything else, to be answered 500', () => {
    const others = [
      failedQuery(withCode('duplicate key value violates unique constraint', '23505')),
      failedQuery(withCode('canceling statement due to statement timeout', '57014')),
      failedQuery(withCode('syntax error at or near "x"', '42601')),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      'a string',
      null,
      undefined,
    ];
    expect(others.map((error) => isDatabaseUnreachable(error))).toEqual(others.map(() => false));
  });

  it('ends on an error that is its own cause', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = { cause: error };
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});

describe('DatabaseUnavailableError', () => {
  it('is a 503 with code 1008', () => {
    const error = new DatabaseUnavailableError();
    expect([error.status, error.code, error.message]).toEqual([
      503,
      ErrorCode.databaseUnavailable,
      'The database is temporarily unavailable; retry shortly',
    ]);
    expect(ErrorCode.databaseUnavailable).toBe(1008);
  });
});
