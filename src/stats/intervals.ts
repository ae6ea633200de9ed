import { Errors } from '../common/app-error';

/** The intervals statistics count in (docs/api.md, "Statistics"): UTC hours, days and ISO weeks. */
export type Interval = 'hour' | 'day' | 'week';
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week'];
const HOUR_MS = 3600_000;

const INTERVAL_MS: Record<Interval, number> = {
  hour: HOUR_MS,
  day: 24 * HOUR_MS,
  week: 7 * 24 * HOUR_MS,
};

/** Down to the previous whole hour. */
export function floorHour(date: Date): Date {
  return new Date(Math.floor(date.getTime() / HOUR_MS) * HOUR_MS);
}

/** Up to the next whole hour (a whole hour stays). */
export function ceilHour(date: Date): Date {
  return new Date(Math.ceil(date.getTime() / HOUR_MS) * HOUR_MS);
}

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

/** The most intervals an answer lists (docs/api.md, "Statistics"). */
export const MAX_INTERVALS = 500;

/** Refuses a period of more than MAX_INTERVALS intervals (an invalid `interval`). */
export function checkIntervalCount(start: Date, end: Date, interval: Interval): void {
  const count = countIntervals(start, end, interval);
  if (count > MAX_INTERVALS) {
    throw Errors.invalid(
      'interval',
      `the period holds ${count} ${interval} intervals; at most ${MAX_INTERVALS}`,
    );
  }
}

/** The start of the interval after the one starting at `bucket` (UTC has no daylight saving). */
export function nextInterval(bucket: Date, interval: Interval): Date {
  return new Date(bucket.getTime() + INTERVAL_MS[interval]);
}
