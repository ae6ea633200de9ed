import type { EntityManager } from 'typeorm';

/** A custom link domain connected to a subscription, as projects reads it. */
export interface ConnectedDomain {
  id: string;
  subscriptionId: string;
  hostname: string;
}

/**
 * The reads of connected domains that projects needs (a project's `domains`, and the hosts it may
 * create links on), which DomainsRepository answers (ConnectedDomainsModule).
 */
export abstract class ConnectedDomains {
  /** Connected domains by hostname, whatever their subscription. */
  abstract findByHostnames(
    hostnames: string[],
    manager?: EntityManager,
  ): Promise<ConnectedDomain[]>;

  /** These connected domains, by hostname. */
  abstract findByIds(ids: string[], manager?: EntityManager): Promise<ConnectedDomain[]>;
}
