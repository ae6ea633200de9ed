import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One attempt to deliver an event to a webhook: the delivery log (webhooks/{id}/deliveries). */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column('uuid')
  webhookId: string;

  @Column('text')
  eventId: string;

  @Column('text')
  eventType: string;

  /** 1 for the first attempt. */
  @Column('integer')
  attempt: number;

  /** The receiver's HTTP status; null when no answer came (timeout, refused connection). */
  @Column('integer', { nullable: true })
  statusCode: number | null;

  @Column('integer')
  durationMs: number;

  /** The first 1 KB of the receiver's answer. */
  @Column('text', { default: '' })
  response: string;

  /** Why the attempt failed without an answer, or null. */
  @Column('text', { nullable: true })
  error: string | null;

  /** When the next attempt is due; null after a success or the last attempt. */
  @Column('timestamptz', { nullable: true })
  nextRetryAt: Date | null;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;
}
