import { GOALS } from '../common/goals';

/** Conversion figures of a link, group or period: count and value per type (goal_1 … goal_10). */
export interface ConversionCounts {
  pageviews: number;
  goals: Record<number, { count: number; value: number }>;
}

/** The conversions object of every statistic (docs/api.md, "Statistics"). */
export interface ConversionsObject {
  pageviews: number;
  goal_total: { count: number; value: number };
  [goal: `goal_${number}`]: { count: number; value: number; label: string | null };
}

export function emptyCounts(): ConversionCounts {
  return { pageviews: 0, goals: {} };
}

/** Adds one rollup row (type, count, value) to the counts. */
export function addConversion(
  counts: ConversionCounts,
  type: string,
  count: number,
  value: number,
): void {
  if (type === 'pageview') {
    counts.pageviews += count;
    return;
  }
  const n = Number(type.slice(5));
  const goal = (counts.goals[n] ??= { count: 0, value: 0 });
  goal.count += count;
  goal.value += value;
}

/** goal_1 … goal_10 with the project's labels, and goal_total over them. */
export function conversionsObject(
  counts: ConversionCounts,
  labels: Partial<Record<string, string>>,
): ConversionsObject {
  const object = { pageviews: counts.pageviews } as ConversionsObject;
  let totalCount = 0;
  let totalValue = 0;
  for (const n of GOALS) {
    const goal = counts.goals[n] ?? { count: 0, value: 0 };
    object[`goal_${n}`] = {
      count: goal.count,
      value: goal.value,
      label: labels[`goal_${n}`] ?? null,
    };
    totalCount += goal.count;
    totalValue += goal.value;
  }
  object.goal_total = { count: totalCount, value: totalValue };
  return object;
}
