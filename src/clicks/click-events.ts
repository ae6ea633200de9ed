import { Injectable } from '@nestjs/common';
import { Lru } from '../common/lru';
import { BatchDescription, NO_AGENT, clickDimensions } from '../enrichment/click-enricher';
import { EventPublisher } from '../events/event-publisher';
import { linkClickedEvent } from '../events/link-clicked-event';
import { OutgoingEvent } from '../events/project-event';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ClickColumns } from './click-event';

/** Links whose svc_id a worker keeps (a link's svc_id never changes). */
const SVC_IDS_KEPT = 50_000;
const SVC_ID_TTL_MS = 24 * 3_600_000;

/**
 * link.clicked (docs/api.md, "Webhooks and live events"), made by the clicks worker after a batch
 * is stored: one event per human click of a project that some sink listens to (a webhook or a live
 * stream: EventPublisher.listens), built by linkClickedEvent, published. Other projects' clicks
 * cost a look-up per project.
 */
@Injectable()
export class ClickEvents {
  private readonly svcIds = new Lru<string>(SVC_IDS_KEPT);

  constructor(
    private readonly lookups: LinkLookupsService,
    private readonly events: EventPublisher,
  ) {}

  /** The batch's human clicks as events, handed over; `describe` gives the batch's dimensions. */
  async emit(columns: ClickColumns, describe: () => BatchDescription): Promise<void> {
    const listened = await this.listenedProjects(columns.projects);
    if (listened.size === 0) return;
    const picked: number[] = [];
    for (let i = 0; i < columns.ids.length; i++) {
      if (columns.bots[i] === 0 && listened.has(columns.project[i])) picked.push(i);
    }
    if (picked.length === 0) return;
    const description = describe();
    const svcIds = await this.svcIdsOf(picked.map((i) => columns.links[i]));
    const events: OutgoingEvent[] = [];
    for (const i of picked) {
      const linkId = columns.links[i];
      const svcId = svcIds.get(linkId);
      // A link deleted since its click: nothing to name.
      if (svcId === undefined) continue;
      const place = columns.ip[i] >= 0 ? description.places[columns.ip[i]] : null;
      const agent = columns.agent[i] >= 0 ? description.agents[columns.agent[i]] : NO_AGENT;
      const referrer = columns.referrer[i] >= 0 ? description.referrers[columns.referrer[i]] : null;
      events.push(
        linkClickedEvent({
          projectId: columns.projects[columns.project[i]],
          linkId,
          svcId,
          id: columns.ids[i],
          at: columns.at[i],
          dimensions: clickDimensions(place, agent, referrer),
        }),
      );
    }
    await this.events.publish(events);
  }

  /** The batch's projects (indexes into `projects`) that some sink takes link.clicked of. */
  private async listenedProjects(projects: readonly string[]): Promise<Set<number>> {
    const listened = new Set<number>();
    for (const [i, projectId] of projects.entries()) {
      if (await this.events.listens(projectId, 'link.clicked')) listened.add(i);
    }
    return listened;
  }

  private async svcIdsOf(linkIds: string[]): Promise<Map<string, string>> {
    const now = Date.now();
    const found = new Map<string, string>();
    const missing = new Set<string>();
    for (const id of linkIds) {
      const kept = this.svcIds.get(id, now);
      if (kept) found.set(id, kept.value);
      else missing.add(id);
    }
    if (missing.size > 0) {
      for (const [id, svcId] of await this.lookups.svcIds([...missing])) {
        found.set(id, svcId);
        this.svcIds.set(id, svcId, SVC_ID_TTL_MS, now);
      }
    }
    return found;
  }
}
