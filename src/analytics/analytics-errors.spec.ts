import { AppError } from '../common/app-error';
import {
  AnalyticsLimitError,
  AnalyticsUnavailableError,
  StatementCancelledError,
  analyticsError,
  clickHouseCode,
} from './analytics-errors';

const LIMITS = { seconds: 20, megabytes: 1024 };

/** An error as @clickhouse/client (and chDB's connection) parse it from a current server's text. */
function parsed(code: number, message: string): Error {
  return Object.assign(new Error(message), { code: String(code), type: 'X' });
}

describe('analyticsError: the ClickHouse codes the API answers (docs/api.md, "Statistics limits")', () => {
  it('a time limit is a 503 (retry), naming the limit and the period to narrow', () => {
    for (const error of [
      parsed(159, 'Timeout exceeded: elapsed 20.001 s, maximum: 20 s.'),
      parsed(160, 'Estimated query execution time (31 seconds) is too long.'),
      // 18.16 leaves the code in its message.
      new Error(
        'Code: 159, e.displayText() = DB::Exception: Timeout exceeded: elapsed 1.0 seconds',
      ),
      // An exception line inside a streamed result.
      new Error('Code: 159. DB::Exception: Timeout exceeded. (TIMEOUT_EXCEEDED)'),
    ]) {
      const mapped = analyticsError(error, LIMITS) as AppError;
      expect(mapped).toBeInstanceOf(AnalyticsLimitError);
      expect([mapped.status, mapped.code, mapped.message]).toEqual([
        503,
        1007,
        'Statistics are temporarily unavailable: the query ran past the 20 s the analytics store allows one; retry shortly, or narrow start_date/end_date',
      ]);
    }
  });

  it('the statement’s own memory limit is a 400 naming what to narrow; the store’s is a 503', () => {
    for (const message of [
      'Query memory limit exceeded: would use 1.01 GiB, maximum: 1.00 GiB.',
      'Code: 241, e.displayText() = DB::Exception: Memory limit (for query) exceeded: would use 2.00 MiB',
    ]) {
      const mapped = analyticsError(parsed(241, message), LIMITS) as AppError;
      expect([mapped.status, mapped.code, mapped.message]).toEqual([
        400,
        1002,
        'Statistics query too large: it needs more than the 1024 MB the analytics store allows one; narrow start_date/end_date, group_by or pivot, or add filters',
      ]);
    }
    for (const message of [
      'Memory limit (total) exceeded: would use 30.1 GiB',
      'Memory limit (for user) exceeded: would use 10.0 GiB',
    ]) {
      const mapped = analyticsError(parsed(241, message), LIMITS) as AppError;
      expect([mapped.status, mapped.message]).toEqual([
        503,
        'Statistics are temporarily unavailable: the analytics store is short of memory; retry shortly',
      ]);
    }
  });

  it('a killed statement is StatementCancelledError; a store out of reach AnalyticsUnavailableError; anything else stays as it is', () => {
    expect(analyticsError(parsed(394, 'Query was cancelled.'), LIMITS)).toBeInstanceOf(
      StatementCancelledError,
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(analyticsError(refused, LIMITS)).toBeInstanceOf(AnalyticsUnavailableError);
    const syntax = parsed(62, 'Syntax error');
    expect(analyticsError(syntax, LIMITS)).toBe(syntax);
    const mine = new AnalyticsLimitError('time', LIMITS);
    expect(analyticsError(mine, LIMITS)).toBe(mine);
  });

  it('reads the code from the parsed field or the message, and nothing else', () => {
    expect(clickHouseCode(parsed(241, 'x'))).toBe(241);
    expect(clickHouseCode(new Error('Code: 60, e.displayText() = …'))).toBe(60);
    expect(clickHouseCode(new Error('Code: 159. DB::Exception: …'))).toBe(159);
    expect(clickHouseCode(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeNull();
    expect(clickHouseCode(new Error('no code: 159 here'))).toBeNull();
    expect(clickHouseCode(null)).toBeNull();
  });
});
