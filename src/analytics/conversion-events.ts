import { AnalyticsClient, chTime, tsvValue } from './analytics-client';
import { LINK_STAMP_COLUMNS } from './analytics-schema';
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
}

const COLUMNS = [
  'project_id',
  'link_id',
  'converted_at',
  'conversion_id',
  'type',
  'value',
  ...LINK_STAMP_COLUMNS.map(([name]) => name),
];

/**
 * Inserts conversion events as one block, each stamped with its link's attributes (LinkStamps), as
 * clicks are; the block is skipped when the store saw its `token`. A block with unstamped events
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
        `${e.project_id}\t${e.link_id}\t${chTime(e.converted_at)}\t${e.conversion_id}\t${tsvValue(e.type)}\t${e.value}\t${stampOf.get(e.link_id)}\n`,
    )
    .join('');
  const insert = analytics.insertTabSeparated('conversions', COLUMNS, text, events.length, {
    token,
  });
  const stamped = events.every((e) => stampOf.get(e.link_id) !== UNSTAMPED);
  await (stamped ? insert : countStampStateWrite(analytics, insert));
}
