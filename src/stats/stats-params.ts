import { Errors } from '../common/app-error';
import { RawParams, bool, optionalDate, requiredDate, single } from '../common/params';
import { INTERVALS, Interval, ceilHour, floorHour } from './intervals';

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

/** `interval`: hour, day (default) or week. */
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
