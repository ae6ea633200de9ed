import { EventType, OutgoingEvent, eventId } from './project-event';

/**
 * link.created and link.updated (docs/api.md, "Webhooks and live events"): the data is the link
 * record as url/info answers it (LinkRecord), without `new`. `links` and `records` are in the
 * same order.
 */
export function linkEvents<R extends { new?: boolean }>(
  type: Extract<EventType, 'link.created' | 'link.updated'>,
  projectId: string,
  links: readonly { id: string }[],
  records: readonly R[],
): OutgoingEvent[] {
  const now = new Date().toISOString();
  return records.map((record, i) => {
    const { new: _made, ...data } = record;
    return {
      projectId,
      linkId: String(links[i].id),
      event: { id: eventId(), type, created_at: now, data: { ...data } },
    };
  });
}
