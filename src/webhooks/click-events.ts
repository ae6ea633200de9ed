import { Injectable } from '@nestjs/common';
import { ClickColumns } from '../clicks/click-event';
import { Lru } from '../common/lru';
import { BatchDescription, NO_AGENT, clickDimensions } from '../enrichment/click-enricher';
import { LiveFeed } from '../events/live-feed';
import { OutgoingEvent, eventId } from '../events/project-event';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEvents } from './project-events';
import { WebhookTargets } from './webhook-targets';

/** Links whose svc_id a worker keeps (a link's svc_id never changes). */
const SVC_IDS_KEPT = 50_000;
const SVC_ID_TTL_MS = 24 * 3_600_000;

/**
 * link.clicked (docs/api.md, "Webhooks and live events"), made by the clicks worker after a batch
 * is stored: one event per human click of a project that a webhook or a live stream listens to,
 * with the click's id, time and dimensions (place, device, browser, OS, referring host) and its
 * link's svc_id; never its address or user agent. The event id comes from the click id, so a batch
 * ingested twice makes the same events. Other projects' clicks cost a look-up per project.
 */
@Injectable()
export class ClickEvents {
  private readonly svcIds = new Lru<string>(SVC_IDS_KEPT);

  constructor(
    private readonly lookups: LinkLookupsService,
    private readonly targets: WebhookTargets,
    private readonly live: LiveFeed,
    private readonly events: ProjectEvents,
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
      const clickedAt = new Date(columns.at[i]).toISOString();
      events.push({
        projectId: columns.projects[columns.project[i]],
        linkId,
        event: {
          id: eventId(columns.ids[i]),
          type: 'link.clicked',
          created_at: clickedAt,
          data: {
            svc_id: svcId,
            click: {
              id: columns.ids[i],
              clicked_at: clickedAt,
              ...clickDimensions(place, agent, referrer),
            },
          },
        },
      });
    }
    await this.events.publish(events);
  }

  /** The batch's projects (indexes into `projects`) with a link.clicked webhook or a live stream. */
  private async listenedProjects(projects: readonly string[]): Promise<Set<number>> {
    const listened = new Set<number>();
    for (const [i, projectId] of projects.entries()) {
      if (await this.live.isWatched(projectId)) {
        listened.add(i);
        continue;
      }
      const targets = await this.targets.forProject(projectId);
      if (targets.some((t) => t.events.has('link.clicked'))) listened.add(i);
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
