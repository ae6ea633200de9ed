/** Every queue of the service. Feature issues add theirs. */
export const QUEUES = {
  mail: 'mail',
  unwrap: 'unwrap',
  clicks: 'clicks',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const ALL_QUEUES: QueueName[] = Object.values(QUEUES);
