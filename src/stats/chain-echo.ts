import { conversionsObject } from './conversions-object';
import { Figures } from './figures';
import { amplification } from './pivot-order';
import { StatsQuery } from './stats-query';

/**
 * A row's chain object (docs/api.md, "Share chains"): its descendants' shares, clicks and, with
 * conversions, conversions; amplification, their clicks per own click.
 */
export function chainObject(
  f: Figures,
  withConversions: boolean,
  labels: Partial<Record<string, string>>,
): Record<string, unknown> {
  const chain = f.chain ?? { clicks: 0, shares: 0, pageviews: 0, goals: {} };
  const object: Record<string, unknown> = {
    shares: chain.shares,
    clicks: chain.clicks,
    amplification: amplification(f),
  };
  if (withConversions)
    object.conversions = conversionsObject(
      { pageviews: chain.pageviews, goals: chain.goals },
      labels,
    );
  return object;
}

/** with_chain and attribution as the request gave them; nothing when it gave neither. */
export function chainEcho(
  query: Pick<StatsQuery, 'withChain' | 'attribution' | 'chainParams'>,
): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  if (query.chainParams.includes('with_chain')) echo.with_chain = query.withChain;
  if (query.chainParams.includes('attribution')) echo.attribution = query.attribution;
  return echo;
}
