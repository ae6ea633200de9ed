/** Every queue of the service. Feature issues add theirs. */
export const QUEUES = {
  mail: 'mail',
  unwrap: 'unwrap',
  clicks: 'clicks',
  /** A re-parented link's descendants get their new chains (ChainMoves). */
  chainMoves: 'chain-moves',
  /** Webhook deliveries, one job per webhook and batch of events (WebhookDeliveries). */
  webhooks: 'webhooks',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const ALL_QUEUES: QueueName[] = Object.values(QUEUES);
