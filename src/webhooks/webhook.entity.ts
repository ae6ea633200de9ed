import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { EventType } from '../events/project-event';

/** Why a webhook is disabled: by hand, by a 410 from its receiver, or after failing too long. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/** A project's webhook (docs/api.md, "Administration of webhooks"). */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  subscriptionId: string;

  @Column('uuid')
  projectId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: EventType[];

  @Column('text', { nullable: true })
  description: string | null;

  /** The links `link.clicked` is limited to (numeric ids); null for every link. */
  @Column('bigint', { array: true, nullable: true })
  linkIds: string[] | null;

  /** Whether `conversion.created` includes pageviews (goals always). */
  @Column('boolean', { default: false })
  pageviews: boolean;

  /** `whsec_…`: signs every delivery. */
  @Column('text')
  secret: string;

  /** The secret before the last rotation, which still signs until previousSecretExpiresAt. */
  @Column('text', { nullable: true })
  previousSecret: string | null;

  @Column('timestamptz', { nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('boolean', { default: true })
  enabled: boolean;

  @Column('text', { nullable: true })
  disabledReason: DisabledReason | null;

  /** Since when most of its last 100 attempts failed (WebhookHealth); null while they do not. */
  @Column('timestamptz', { nullable: true })
  failingSince: Date | null;

  /** Its last 100 attempts' outcomes, oldest first: `s` a success, `f` a failure (WebhookHealth). */
  @Column('text', { default: '' })
  recentOutcomes: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
