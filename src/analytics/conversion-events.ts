import { AnalyticsClient, chTime, tsvValue } from './analytics-client';
import {
  CLICK_DIMENSION_COLUMNS,
  ClickDimension,
  ENRICHMENT_COLUMNS,
  STAMP_COLUMNS,
} from './analytics-schema';
import { LinkStamps, UNSTAMPED } from './link-stamps';
import { countStampStateWrite } from './stamp-state';

/** A conversion as an event of the analytics store: what statistics sum. */
export interface ConversionEvent {
  project_id: string;
  link_id: string;
  converted_at: Date;
  conversion_id: string;
  type: string;
  value: number;
  /**
   * The click that led to it (its redirection_id) and that click's dimensions when the store held
   * it (`dimensions`); without them the conversion is stored not enriched, for analytics:backfill
   * to describe from its click later.
   */
  click_id?: string | null;
  dimensions?: ClickDimensions | null;
}

/** A click's dimensions as the store holds them (null where unknown). */
export type ClickDimensions = Record<ClickDimension, string | null>;

/** A conversion's dimension columns and `enriched`, as TabSeparated fields. */
function dimensionFields(dimensions: ClickDimensions | null | undefined): string {
  if (!dimensions) return `${CLICK_DIMENSION_COLUMNS.map(() => '\\N').join('\t')}\t0`;
  return `${CLICK_DIMENSION_COLUMNS.map((c) => tsvValue(dimensions[c])).join('\t')}\t1`;
}

const COLUMNS = [
  'project_id',
  'link_id',
  'converted_at',
  'conversion_id',
  'type',
  'value',
  ...STAMP_COLUMNS.map(([name]) => name),
  'click_id',
  ...ENRICHMENT_COLUMNS,
];

/**
 * Inserts conversion events as one block, each stamped with its link's attributes (LinkStamps), as
 * clicks are, and with its click's dimensions; the block is skipped when the store saw its `token`. A block with unstamped events
 * changes its projects' stamp state (stamp-state.ts).
 */
export async function insertConversionEvents(
  analytics: AnalyticsClient,
  stamps: LinkStamps,
  events: readonly ConversionEvent[],
  token: string,
): Promise<void> {
  if (events.length === 0) return;
  const stampOf = await stamps.of(
    [...new Set(events.map((e) => e.project_id))],
    events.map((e) => e.link_id),
  );
  const text = events
    .map(
      (e) =>
        `${e.project_id}\t${e.link_id}\t${chTime(e.converted_at)}\t${e.conversion_id}\t${tsvValue(e.type)}\t${e.value}\t${stampOf.get(e.link_id)}\t${e.click_id ?? '\\N'}\t${dimensionFields(e.dimensions)}\n`,
    )
    .join('');
  const insert = analytics.insertTabSeparated('conversions', COLUMNS, text, events.length, {
    token,
  });
  const stamped = events.every((e) => stampOf.get(e.link_id) !== UNSTAMPED);
  await (stamped ? insert : countStampStateWrite(analytics, insert));
}
