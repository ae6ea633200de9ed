import { EventType, OutgoingEvent, eventId } from '../events/project-event';
import { LinkRecord } from '../links/link-record';

/**
 * link.created and link.updated (docs/api.md, "Webhooks and live events"): the data is the link
 * record as url/info answers it. `links` and `records` are in the same order.
 */
export function linkEvents(
  type: Extract<EventType, 'link.created' | 'link.updated'>,
  projectId: string,
  links: readonly { id: string }[],
  records: readonly LinkRecord[],
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
