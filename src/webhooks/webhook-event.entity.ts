import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ProjectEvent } from '../events/project-event';

/**
 * An event a project's webhooks are told of, kept whole so that a redelivery sends the same body
 * under the same id (docs/api.md, "Webhooks and live events").
 */
@Entity('webhook_events')
export class WebhookEventEntity {
  /** `evt_…` (eventId()). */
  @PrimaryColumn('text')
  id: string;

  @Column('uuid')
  projectId: string;

  @Column('text')
  type: string;

  /** The whole event: `{id, type, created_at, data}`. */
  @Column('jsonb')
  body: ProjectEvent;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;
}
