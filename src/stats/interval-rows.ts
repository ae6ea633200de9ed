import { ConversionCounts, addConversion, emptyCounts } from './conversions-object';
import { Interval, intervalStart, nextInterval } from './intervals';
import { IntervalConversionRow, IntervalRow } from './stats.repository';

/**
 * Every interval of [start, end) in order, with the activity rows where there was activity and
 * zeros elsewhere: the first interval is the one `start` falls in (weeks start on Monday, UTC).
 */
export function withZeros<T extends IntervalRow>(
  rows: T[],
  start: Date,
  end: Date,
  interval: Interval,
  zero: Omit<T, 'bucket' | 'clicks'> = {} as Omit<T, 'bucket' | 'clicks'>,
): T[] {
  const byTime = new Map(rows.map((row) => [row.bucket.getTime(), row]));
  const out: T[] = [];
  for (
    let bucket = intervalStart(start, interval);
    bucket.getTime() < end.getTime();
    bucket = nextInterval(bucket, interval)
  ) {
    out.push(byTime.get(bucket.getTime()) ?? ({ ...zero, bucket, clicks: 0 } as T));
  }
  return out;
}

/** Conversion rows summed per interval (by its start time) and in all. */
export function countByBucket(rows: IntervalConversionRow[]): {
  byBucket: Map<number, ConversionCounts>;
  total: ConversionCounts;
} {
  const byBucket = new Map<number, ConversionCounts>();
  const total = emptyCounts();
  for (const row of rows) {
    const counts = byBucket.get(row.bucket.getTime()) ?? emptyCounts();
    addConversion(counts, row.type, row.count, row.value);
    addConversion(total, row.type, row.count, row.value);
    byBucket.set(row.bucket.getTime(), counts);
  }
  return { byBucket, total };
}

/** The activity rows plus a zero row for every other bucket given, in time order. */
export function mergeBuckets<T extends IntervalRow>(
  rows: T[],
  buckets: Iterable<number>,
  zero: Omit<T, 'bucket' | 'clicks'> = {} as Omit<T, 'bucket' | 'clicks'>,
): T[] {
  const seen = new Set(rows.map((row) => row.bucket.getTime()));
  const extra = [...buckets]
    .filter((time) => !seen.has(time))
    .map((time) => ({ ...zero, bucket: new Date(time), clicks: 0 }) as T);
  if (extra.length === 0) return rows;
  return [...rows, ...extra].sort((a, b) => a.bucket.getTime() - b.bucket.getTime());
}
