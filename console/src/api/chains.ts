/**
 * The answers of the share-chain extension (docs/api.md, "Share chains (extension)"), written by
 * hand: schema.ts is generated from openapi.json (scripts/openapi.js), which does not describe them
 * yet. Once it does, these become aliases of the generated schemas.
 */
import type { Schemas } from './client';

/** Whose click it is: the link clicked (`last`, the default) or the root of its cascade (`first`). */
export type Attribution = 'last' | 'first';

export const ATTRIBUTIONS: readonly Attribution[] = ['last', 'first'];

type Conversions = Schemas['ConversionsObjectDto'];

/** A link's own figures in chain.json. */
export interface ChainOwn {
  clicks: number;
  /** with_conversions=true */
  conversions?: Conversions;
}

/** The figures of every descendant of a link, all generations together. */
export interface ChainDownstream {
  /** Descendant links shared in the window. */
  shares: number;
  /** Distinct sharer_id, else user_id, else the link itself, among those links. */
  sharers: number;
  clicks: number;
  /** How many generations below the link have descendants. */
  generations: number;
  conversions?: Conversions;
}

/** One generation below a link (1 = its children). */
export interface ChainGeneration {
  generation: number;
  shares: number;
  clicks: number;
  conversions?: Conversions;
}

/** A direct child of a link, with its own and downstream figures. */
export interface ChainChild {
  svc_id: string;
  depth: number;
  channel: string | null;
  sharer_id: string | null;
  user_id: string | null;
  own: ChainOwn;
  downstream: Omit<ChainDownstream, 'conversions'>;
}

/** GET|POST stats/{svc_id}/chain.json. */
export interface ChainResponse {
  svc_id: string;
  /** The svc_id of the cascade's root (the link itself at depth 0). */
  root: string;
  depth: number;
  start_date: string | null;
  end_date: string | null;
  with_conversions: boolean;
  own: ChainOwn;
  downstream: ChainDownstream;
  generations: ChainGeneration[];
  page: number;
  per_page: number;
  /** The direct children, over every page. */
  total_results: number;
  children: ChainChild[];
}

/** The `chain` object range and totals add to the totals, each group and pivot with with_chain=true. */
export interface ChainFigures {
  shares: number;
  clicks: number;
  /** chain.clicks / clicks (4 decimals); null when clicks is 0. */
  amplification: number | null;
  conversions?: Conversions;
}

/** A range group with with_chain=true. */
export type ChainGroup = Schemas['GroupDto'] & { chain: ChainFigures };

/** A range answer with with_chain=true. */
export interface ChainAggregateResponse extends Omit<
  Schemas['AggregateResponseDto'],
  'sort_type' | 'groups' | 'totals'
> {
  with_chain: true;
  sort_type: ChainSortType | Schemas['SortType'] | null;
  totals: Schemas['FiguresDto'] & { chain: ChainFigures };
  groups: ChainGroup[];
}

/** The sorts with_chain=true adds to sort_type and pivot_sort_type. */
export type ChainSortType = 'chain_clicks' | 'chain_shares' | 'amplification';
