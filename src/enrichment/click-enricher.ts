import { Injectable } from '@nestjs/common';
import { GeoLookup, Place } from './geo-lookup';
import { AgentInfo, DeviceClass, describeAgent } from './user-agent';
import { referrerHost } from './referrer';

export type { Place } from './geo-lookup';
export { NO_AGENT } from './user-agent';
export type { AgentInfo, DeviceClass } from './user-agent';

/** A click's dimensions, the columns the analytics store keeps beside the raw click. */
export interface ClickDimensions {
  country: string | null;
  region: string | null;
  city: string | null;
  device: DeviceClass;
  browser: string | null;
  os: string | null;
  referrer_host: string | null;
}

/** The distinct values of a batch of clicks, which its clicks reference by index. */
export interface BatchLists {
  ips: readonly string[];
  agents: readonly string[];
  referrers: readonly string[];
}

/** BatchLists described: one result per entry, at the same index. */
export interface BatchDescription {
  places: (Place | null)[];
  agents: AgentInfo[];
  referrers: (string | null)[];
}

/**
 * A click's dimensions from its place, agent (NO_AGENT when it has none) and referring host; what
 * one click's row holds when BatchDescription's parts are put together.
 */
export function clickDimensions(
  place: Place | null,
  agent: AgentInfo,
  referrer: string | null,
): ClickDimensions {
  return {
    country: place?.country ?? null,
    region: place?.region ?? null,
    city: place?.city ?? null,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
    referrer_host: referrer,
  };
}

/**
 * Computes clicks' dimensions in the worker, never on the redirect path: place (GeoLookup),
 * device, browser and OS (describeAgent), referring host (referrerHost). A batch's clicks share
 * few distinct addresses, agents and referrers, so each distinct value is described once.
 */
@Injectable()
export class ClickEnricher {
  constructor(private readonly geo: GeoLookup) {}

  /**
   * Reads the geolocation database (once): before the first describe. With the batch's addresses,
   * only the files they need (the shipped IPv6 file is not read while no IPv6 address comes).
   */
  async ready(ips?: readonly string[]): Promise<void> {
    await this.geo.load(ips);
  }

  /** Each entry of each list described, at its index (after ready). */
  describe(lists: BatchLists): BatchDescription {
    return {
      places: lists.ips.map((ip) => this.geo.place(ip)),
      agents: lists.agents.map((agent) => describeAgent(agent)),
      referrers: lists.referrers.map((referrer) => referrerHost(referrer)),
    };
  }
}
