/**
 * The conversion goals, in one place for the projects that label them, the conversions that record
 * them and the statistics that report them (docs/api.md, "Conversions and the tracking script" and
 * "Statistics").
 */

/**
 * Every goal number: project listings carry goal_1_label … goal_10_label, statistics goal_1 …
 * goal_10.
 */
export const GOALS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** The goals a conversion records and a project sets a label for: goal_1 … goal_5. */
export const RECORDED_GOALS = [1, 2, 3, 4, 5] as const;

/** The types of a conversion: a pageview, or one of the recorded goals. */
export const CONVERSION_TYPES = [
  'pageview',
  ...RECORDED_GOALS.map((n) => `goal_${n}` as const),
] as const;
