import Bowser from 'bowser';
import { Lru } from '../common/lru';

/** The kind of device a click came from: bowser's platform type (tv, bot and unknown: other). */
export type DeviceClass = 'desktop' | 'mobile' | 'tablet' | 'other';

/** Every DeviceClass, in the order reports list them (and the values a device filter accepts). */
export const DEVICE_CLASSES: readonly DeviceClass[] = ['desktop', 'mobile', 'tablet', 'other'];

/** What a user agent says about the visitor: device class, browser and OS names (no versions). */
export interface AgentInfo {
  readonly device: DeviceClass;
  readonly browser: string | null;
  readonly os: string | null;
}

/** A click without a user agent (and one bowser recognises nothing in). */
export const NO_AGENT: AgentInfo = Object.freeze({ device: 'other', browser: null, os: null });

/** Parsed agents kept: a batch of thousands of clicks has few distinct ones and parsing one costs more than a look-up. */
const AGENTS_KEPT = 2000;
/** Longer agents are parsed but not kept (real ones are a few hundred characters). */
const LONGEST_KEPT = 1000;
const agents = new Lru<AgentInfo>(AGENTS_KEPT);

function deviceOf(type: string | undefined): DeviceClass {
  return type === 'desktop' || type === 'mobile' || type === 'tablet' ? type : 'other';
}

function parse(userAgent: string): AgentInfo {
  const { browser, os, platform } = Bowser.parse(userAgent);
  const info: AgentInfo = {
    device: deviceOf(platform.type),
    browser: browser.name || null,
    os: os.name || null,
  };
  return info.device === 'other' && info.browser === null && info.os === null
    ? NO_AGENT
    : Object.freeze(info);
}

/**
 * A user agent's device class, browser and OS, as bowser names them (desktop, mobile and tablet
 * platforms are themselves; TVs, bots, the unrecognised and a missing agent are `other`). Results
 * are shared and frozen; recent agents are remembered (an LRU of AGENTS_KEPT).
 */
export function describeAgent(userAgent: string | null): AgentInfo {
  if (!userAgent?.trim()) return NO_AGENT;
  // A user agent always parses the same: entries never expire.
  const known = agents.get(userAgent, 0);
  if (known) return known.value;
  const info = parse(userAgent);
  if (userAgent.length <= LONGEST_KEPT) agents.set(userAgent, info, Infinity, 0);
  return info;
}
