import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient } from '../analytics/analytics-client';
import { stampStateWrites } from '../analytics/stamp-state';
import { ChainState, StampState } from './queries/row-parts';
import { isMultiTagField, isStampedField } from './stats-fields';
import { StatsQuery } from './stats-query';
import { StatsRepository } from './stats.repository';

/** Stamp states kept at most (by set of projects); all are dropped when there would be more. */
const STAMP_STATES_KEPT = 10_000;

/**
 * Whether a range or totals request groups events by their stamps: when every field it groups,
 * pivots or filters by is stamped (LINK_STAMP_COLUMNS; a multi-value tag only as a filter).
 * Otherwise every event is joined to `links` (docs/architecture.md, "How a statistic flows").
 */
export function readsStamps(query: StatsQuery): boolean {
  const grouped: string[] = [];
  for (const field of [query.groupBy, query.pivot]) if (field) grouped.push(field);
  if (grouped.some((field) => isMultiTagField(field))) return false;
  return [...grouped, ...Object.keys(query.filters)].every(
    (field) => field === 'project' || isStampedField(field),
  );
}

/**
 * The stamp state a range or totals request's rows are built on (RowsContext.stamped). Read in
 * one small statement before the request's own; when this process alone writes the store
 * (embedded), kept per set of projects while no write that may change it has ended since.
 */
@Injectable()
export class StampStates {
  /**
   * The stamp state last read per set of projects, with the store's count of writes that may change
   * one (stampStateWrites) as it was when the read began: while the count is the same, no such
   * write has ended since, and the state is the store's.
   */
  private readonly kept = new Map<string, { writes: number; state: StampState }>();
  /** The chain state last read per set of projects, kept as `kept` is. */
  private readonly keptChains = new Map<string, { writes: number; state: ChainState }>();
  /** Whether a set of projects has retired events, kept as `kept` is. */
  private readonly keptRetired = new Map<string, { writes: number; state: boolean }>();

  constructor(
    private readonly repository: StatsRepository,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
  ) {}

  /** The projects' stamp state when the request reads stamps (readsStamps), else null: joined. */
  async forRequest(
    query: StatsQuery,
    projectIds: string[],
    signal?: AbortSignal,
    retired = false,
  ): Promise<StampState | null> {
    return readsStamps(query) ? this.of(projectIds, signal, retired) : null;
  }

  /**
   * The projects' chain state when the request reads share chains (with_chain), else null; with
   * `retired`, the retired rollups' chain stamps count too.
   */
  async forChains(
    query: StatsQuery,
    projectIds: string[],
    signal?: AbortSignal,
    retired = false,
  ): Promise<ChainState | null> {
    return query.withChain ? this.chains(projectIds, signal, retired) : null;
  }

  /** The projects' chain state: kept, or read (and kept with a sole writer). */
  chains(projectIds: string[], signal?: AbortSignal, retired = false): Promise<ChainState> {
    return this.keptOr(this.keptChains, projectIds, retired, () =>
      retired
        ? this.repository.chainState(projectIds, signal, true)
        : this.repository.chainState(projectIds, signal),
    );
  }

  /**
   * Whether the projects have retired events (docs/architecture.md, "Retention"), which the
   * statements then add: kept, or read (and kept with a sole writer).
   */
  retired(projectIds: string[], signal?: AbortSignal): Promise<boolean> {
    return this.keptOr(this.keptRetired, projectIds, false, () =>
      this.repository.retiredState(projectIds, signal),
    );
  }

  /** The projects' stamp state: kept, or read (and kept with a sole writer). */
  private of(
    projectIds: string[],
    signal: AbortSignal | undefined,
    retired: boolean,
  ): Promise<StampState> {
    return this.keptOr(this.kept, projectIds, retired, () =>
      retired
        ? this.repository.stampState(projectIds, signal, true)
        : this.repository.stampState(projectIds, signal),
    );
  }

  /** A state kept in `states` for the projects while no write changed it, else read and kept. */
  private async keptOr<T>(
    states: Map<string, { writes: number; state: T }>,
    projectIds: string[],
    retired: boolean,
    read: () => Promise<T>,
  ): Promise<T> {
    const writes = stampStateWrites(this.analytics);
    const key = `${retired ? 'retired:' : ''}${projectIds.join(',')}`;
    const kept = writes === null ? undefined : states.get(key);
    if (kept && kept.writes === writes) return kept.state;
    const state = await read();
    if (writes !== null) {
      if (states.size >= STAMP_STATES_KEPT) states.clear();
      states.set(key, { writes, state });
    }
    return state;
  }
}
