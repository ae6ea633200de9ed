/** Every queue of the service. Feature issues add theirs (clicks, unwrap). */
export const QUEUES = {
  mail: 'mail',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const ALL_QUEUES: QueueName[] = Object.values(QUEUES);
