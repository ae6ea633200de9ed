import { Errors } from '../common/app-error';
import { bool, parseDate, single } from '../links/link-input';

type RawParams = Record<string, unknown>;

export type Interval = 'hour' | 'day' | 'week';
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week'];
const HOUR_MS = 3600_000;

/** Down to the previous whole hour. */
export function floorHour(date: Date): Date {
  return new Date(Math.floor(date.getTime() / HOUR_MS) * HOUR_MS);
}

/** Up to the next whole hour (a whole hour stays). */
export function ceilHour(date: Date): Date {
  return new Date(Math.ceil(date.getTime() / HOUR_MS) * HOUR_MS);
}

/** A date parameter, or undefined when absent. */
export function optionalDate(params: RawParams, name: string): Date | undefined {
  const value = single(params, name, 64);
  return value === undefined ? undefined : parseDate(value, name);
}

export function requiredDate(params: RawParams, name: string): Date {
  const date = optionalDate(params, name);
  if (!date) throw Errors.missing(name);
  return date;
}

/** start_date rounded down, end_date rounded up to the hour; start must be after `earliest` (if any). */
export function readPeriod(
  params: RawParams,
  options: { required: boolean; earliest: Date | null },
): { start: Date | null; end: Date | null } {
  const startRaw = options.required
    ? requiredDate(params, 'start_date')
    : optionalDate(params, 'start_date');
  const endRaw = options.required
    ? requiredDate(params, 'end_date')
    : optionalDate(params, 'end_date');
  const start = startRaw ? floorHour(startRaw) : null;
  const end = endRaw ? ceilHour(endRaw) : null;
  if (start && options.earliest && start.getTime() <= options.earliest.getTime()) {
    throw Errors.invalid(
      'start_date',
      `must be after ${options.earliest.toISOString().slice(0, 10)}`,
    );
  }
  if (start && end && end.getTime() <= start.getTime()) {
    throw Errors.invalid('end_date', 'must be after start_date');
  }
  return { start, end };
}

export function readInterval(params: RawParams): Interval {
  const value = single(params, 'interval', 10) ?? 'day';
  if (!(INTERVALS as readonly string[]).includes(value)) {
    throw Errors.invalid('interval', 'must be hour, day or week');
  }
  return value as Interval;
}

/** The three switches every stats endpoint takes, plus with_bots (an extension; docs/api.md). */
export function readSwitches(params: RawParams): {
  withConversions: boolean;
  withMetadata: boolean;
  withZeros: boolean;
  withBots: boolean;
} {
  return {
    withConversions: bool(params, 'with_conversions', false),
    withMetadata: bool(params, 'with_metadata', false),
    withZeros: bool(params, 'with_zeros', false),
    withBots: bool(params, 'with_bots', false),
  };
}

/** A positive integer parameter within bounds. */
export function readInt(
  params: RawParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = single(params, name, 12);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw Errors.invalid(name, `must be an integer from ${min} to ${max}`);
  }
  return number;
}

export function optionalInt(
  params: RawParams,
  name: string,
  min: number,
  max: number,
): number | null {
  return single(params, name, 12) === undefined ? null : readInt(params, name, 0, min, max);
}

const INTERVAL_MS: Record<Interval, number> = {
  hour: HOUR_MS,
  day: 24 * HOUR_MS,
  week: 7 * 24 * HOUR_MS,
};

/** The start of the interval holding `date` (UTC; weeks start on Monday, ISO 8601). */
export function intervalStart(date: Date, interval: Interval): Date {
  if (interval === 'hour') return floorHour(date);
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  if (interval === 'day') return day;
  const mondayOffset = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - mondayOffset * INTERVAL_MS.day);
}

/** How many intervals [start, end) touches. */
export function countIntervals(start: Date, end: Date, interval: Interval): number {
  const first = intervalStart(start, interval).getTime();
  const last = intervalStart(new Date(end.getTime() - 1), interval).getTime();
  return Math.round((last - first) / INTERVAL_MS[interval]) + 1;
}

/** The start of the interval after the one starting at `bucket` (UTC has no daylight saving). */
export function nextInterval(bucket: Date, interval: Interval): Date {
  return new Date(bucket.getTime() + INTERVAL_MS[interval]);
}
