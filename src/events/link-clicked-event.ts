import type { ClickDimensions } from '../enrichment/click-enricher';
import { OutgoingEvent, eventId } from './project-event';

/** What link.clicked tells of one human click. */
export interface ClickFacts {
  projectId: string;
  /** The link's numeric id. */
  linkId: string;
  svcId: string;
  /** The click's id, a UUID version 7. */
  id: string;
  /** When it was clicked, in ms. */
  at: number;
  dimensions: ClickDimensions;
}

/**
 * link.clicked (docs/api.md, "Webhooks and live events"): the click's id, time and dimensions
 * (place, device, browser, OS, referring host) and its link's svc_id; never its address or user
 * agent. The event id comes from the click id, so a batch ingested twice makes the same events.
 */
export function linkClickedEvent(click: ClickFacts): OutgoingEvent {
  const clickedAt = new Date(click.at).toISOString();
  return {
    projectId: click.projectId,
    linkId: click.linkId,
    event: {
      id: eventId(click.id),
      type: 'link.clicked',
      created_at: clickedAt,
      data: {
        svc_id: click.svcId,
        click: { id: click.id, clicked_at: clickedAt, ...click.dimensions },
      },
    },
  };
}
