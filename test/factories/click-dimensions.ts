import type { ClickDimensions } from '../../src/enrichment/click-enricher';

/** The dimensions of a click without place, agent or referrer (docs/api.md, "Click dimensions"). */
export const NO_DIMENSIONS: ClickDimensions = {
  country: null,
  region: null,
  city: null,
  device: 'other',
  browser: null,
  os: null,
  referrer_host: null,
};
