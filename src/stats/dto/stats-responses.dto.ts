import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LinkRecordDto } from '../../links/dto/link-record.dto';

export const INTERVALS = ['hour', 'day', 'week'] as const;
export const SORT_TYPES = [
  'clicks',
  'shares',
  'clicks_per_share',
  'alpha',
  'shared_at',
  'pageviews',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((n) => [`goal_${n}_count`, `goal_${n}_value`]),
  'goal_total_count',
  'goal_total_value',
  'chain_clicks',
  'chain_shares',
  'amplification',
] as const;

/** attribution (extension; docs/api.md, "Share chains"). */
export const ATTRIBUTIONS = ['last', 'first'] as const;

/** The attribution echo: only when the request gave the parameter. */
const ATTRIBUTION_ECHO = {
  type: String,
  enum: ATTRIBUTIONS,
  description: 'Extension (share chains): the attribution asked for, when given',
} as const;

export class GoalFiguresDto {
  @ApiProperty({ type: 'integer' })
  count: number;
  @ApiProperty({ type: 'integer', description: 'Sum of the conversion values' })
  value: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The project’s label of the goal',
    example: 'Purchase',
  })
  label: string | null;
}

export class GoalTotalDto {
  @ApiProperty({ type: 'integer' })
  count: number;
  @ApiProperty({ type: 'integer' })
  value: number;
}

/** The conversions object of every statistic (docs/api.md, "Statistics"). */
@ApiExtraModels(GoalFiguresDto)
export class ConversionsObjectDto {
  @ApiProperty({ type: 'integer' })
  pageviews: number;
  @ApiProperty({ type: GoalTotalDto })
  goal_total: GoalTotalDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_1: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_2: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_3: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_4: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_5: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_6: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_7: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_8: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_9: GoalFiguresDto;
  @ApiProperty({ type: GoalFiguresDto }) goal_10: GoalFiguresDto;
}

/** One interval of a link: its start under the interval's name (hour, day or week) and clicks. */
export class LinkIntervalDto {
  @ApiPropertyOptional({ example: '2026-11-20T00:00:00Z' })
  hour?: string;
  @ApiPropertyOptional({ example: '2026-11-20T00:00:00Z' })
  day?: string;
  @ApiPropertyOptional({ example: '2026-11-17T00:00:00Z' })
  week?: string;
  @ApiProperty({ type: 'integer' })
  clicks: number;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

/** stats/{svc_id}/intervals.json (docs/api.md, "Statistics"). */
export class LinkIntervalsResponseDto {
  @ApiProperty({ example: 'localhost:3000_aB3dE9x' })
  svc_id: string;
  @ApiProperty({ example: '2026-11-01T00:00:00Z' })
  start_date: string;
  @ApiProperty({ example: '2026-11-23T00:00:00Z' })
  end_date: string;
  @ApiProperty({ enum: INTERVALS, enumName: 'Interval' })
  interval: (typeof INTERVALS)[number];
  @ApiProperty()
  with_zeros: boolean;
  @ApiProperty()
  with_metadata: boolean;
  @ApiProperty()
  with_conversions: boolean;
  @ApiProperty({ type: 'integer' })
  clicks: number;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-20T09:31:02Z' })
  last_clicked_at: string | null;
  @ApiProperty({ type: [LinkIntervalDto] })
  intervals: LinkIntervalDto[];
  @ApiPropertyOptional(ATTRIBUTION_ECHO)
  attribution?: (typeof ATTRIBUTIONS)[number];
  @ApiPropertyOptional({ type: LinkRecordDto, description: 'with_metadata=true' })
  metadata?: LinkRecordDto;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

/** A link's clicks and latest click (stats/{svc_id}.json, one item of stats/svc_ids/batch.json). */
export class LinkClicksDto {
  @ApiProperty({ example: 'localhost:3000_aB3dE9x' })
  svc_id: string;
  @ApiProperty({ type: 'integer' })
  clicks: number;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-20T09:31:02Z' })
  last_clicked_at: string | null;
  @ApiPropertyOptional({ type: LinkRecordDto, description: 'with_metadata=true' })
  metadata?: LinkRecordDto;
}

export class LinkDetailsResponseDto extends LinkClicksDto {
  @ApiProperty({ type: String, nullable: true })
  start_date: string | null;
  @ApiProperty({ type: String, nullable: true })
  end_date: string | null;
  @ApiProperty()
  with_metadata: boolean;
}

export class LinkBatchDetailsResponseDto {
  @ApiProperty({ type: [LinkClicksDto] })
  svc_ids: LinkClicksDto[];
}

/** Clicks, shares and clicks per share of the totals, a group or a pivot. */
/** with_chain=true: the activity of the descendants of a row's links (extension; "Share chains"). */
export class ChainFiguresDto {
  @ApiProperty({ type: 'integer', description: 'Descendants shared (in the period on range)' })
  shares: number;
  @ApiProperty({ type: 'integer', description: "The descendants' clicks" })
  clicks: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'chain clicks per own click, four decimals; null without own clicks',
    example: 1.7778,
  })
  amplification: number | null;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

export class FiguresDto {
  @ApiProperty({ type: 'integer' })
  clicks: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'null when the request groups, pivots or filters by a click dimension',
  })
  shares: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Four decimals; null when shares is',
    example: 2.5,
  })
  clicks_per_share: number | null;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'with_conversions=true' })
  conversions?: ConversionsObjectDto;
  @ApiPropertyOptional({ type: ChainFiguresDto, description: 'with_chain=true (extension)' })
  chain?: ChainFiguresDto;
}

/** A pivot of a group: the pivoted field's value under its name, and the figures. */
export class PivotDto extends FiguresDto {
  [field: string]: unknown;
}

/**
 * A group: the grouped field's value under its name (e.g. `channel`; null for links without a value),
 * the figures, and with pivot its pivots.
 */
export class GroupDto extends FiguresDto {
  @ApiPropertyOptional({ type: [PivotDto], description: 'With pivot' })
  pivots?: PivotDto[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'with_metadata=true: svc_id: original_url, notes; user_id: username, icon_url, profile_url; campaign: name, description',
  })
  metadata?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** stats/range.json and stats/totals.json (docs/api.md, "Statistics"). */
export class AggregateResponseDto {
  @ApiProperty({ type: String, nullable: true })
  start_date: string | null;
  @ApiProperty({ type: String, nullable: true })
  end_date: string | null;
  @ApiProperty()
  with_metadata: boolean;
  @ApiProperty()
  with_conversions: boolean;
  @ApiProperty()
  with_zeros: boolean;
  @ApiPropertyOptional({ description: 'Extension (share chains): with_chain, when given' })
  with_chain?: boolean;
  @ApiPropertyOptional(ATTRIBUTION_ECHO)
  attribution?: (typeof ATTRIBUTIONS)[number];
  @ApiProperty({
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {}, maxItems: 0 },
    ],
    description: 'The filters applied, each with <field>_metadata; an empty array when none',
  })
  filters: Record<string, unknown> | [];
  @ApiProperty({ type: String, nullable: true, example: 'channel' })
  group_by: string | null;
  // Inline enums, not the named SortType and SortOrder: a reference cannot be nullable in OpenAPI
  // 3.0, where `nullable` needs a `type` beside it.
  @ApiProperty({ type: String, enum: SORT_TYPES, nullable: true })
  sort_type: (typeof SORT_TYPES)[number] | null;
  @ApiProperty({ type: String, enum: ['asc', 'desc'], nullable: true })
  sort_order: 'asc' | 'desc' | null;
  @ApiProperty({ type: String, nullable: true })
  pivot: string | null;
  @ApiProperty({ type: String, enum: SORT_TYPES, nullable: true })
  pivot_sort_type: (typeof SORT_TYPES)[number] | null;
  @ApiProperty({ type: String, enum: ['asc', 'desc'], nullable: true })
  pivot_sort_order: 'asc' | 'desc' | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The page asked for (1 by default); null when offset was given, which overrides it',
  })
  page: number | null;
  @ApiProperty({ type: 'integer' })
  per_page: number;
  @ApiProperty({ type: 'integer' })
  offset: number;
  @ApiProperty({ type: 'integer' })
  last_offset: number;
  @ApiProperty({ type: 'integer', description: 'All groups, over every page' })
  total_results: number;
  @ApiProperty({ type: FiguresDto })
  totals: FiguresDto;
  @ApiProperty({ type: [GroupDto] })
  groups: GroupDto[];
}

/** One interval of a project: its start under the interval's name, clicks and shares. */
export class RangeIntervalDto extends LinkIntervalDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'null with a click-dimension filter',
  })
  shares: number | null;
}

export class RangeIntervalsTotalsDto {
  @ApiProperty({ type: 'integer' })
  clicks: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'null with a click-dimension filter',
  })
  shares: number | null;
  @ApiProperty({ type: [RangeIntervalDto] })
  intervals: RangeIntervalDto[];
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

/** stats/range/intervals.json. */
export class RangeIntervalsResponseDto {
  @ApiProperty({ example: '2026-11-01T00:00:00Z' })
  start_date: string;
  @ApiProperty({ example: '2026-11-23T00:00:00Z' })
  end_date: string;
  @ApiProperty({ enum: INTERVALS, enumName: 'Interval' })
  interval: (typeof INTERVALS)[number];
  @ApiProperty()
  with_zeros: boolean;
  @ApiProperty()
  with_conversions: boolean;
  @ApiPropertyOptional(ATTRIBUTION_ECHO)
  attribution?: (typeof ATTRIBUTIONS)[number];
  @ApiProperty({
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {}, maxItems: 0 },
    ],
  })
  filters: Record<string, unknown> | [];
  @ApiProperty({ type: RangeIntervalsTotalsDto })
  totals: RangeIntervalsTotalsDto;
}

/** A link's own figures in a cascade (chain.json; extension). */
export class ChainOwnDto {
  @ApiProperty({ example: 5 })
  clicks: number;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'With with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

/** The figures of a link's descendants, all generations (chain.json; extension). */
export class ChainDownstreamDto {
  @ApiProperty({ description: 'Descendant links shared in the window', example: 4 })
  shares: number;
  @ApiProperty({
    description: 'Distinct sharers of those shares: sharer_id, else user_id, else the link',
    example: 3,
  })
  sharers: number;
  @ApiProperty({ description: "The descendants' clicks in the window", example: 16 })
  clicks: number;
  @ApiProperty({ description: 'The deepest generation with a share or activity', example: 3 })
  generations: number;
  @ApiPropertyOptional({ type: ConversionsObjectDto, description: 'With with_conversions=true' })
  conversions?: ConversionsObjectDto;
}

/** One generation below a link (chain.json; extension). */
export class ChainGenerationDto {
  @ApiProperty({ description: '1: the children, 2: their children, …', example: 1 })
  generation: number;
  @ApiProperty({ example: 2 })
  shares: number;
  @ApiProperty({ example: 7 })
  clicks: number;
  @ApiPropertyOptional({ type: ConversionsObjectDto })
  conversions?: ConversionsObjectDto;
}

/** A direct child of a link, with its own and downstream figures (chain.json; extension). */
export class ChainChildDto {
  @ApiProperty({ example: 'svc.example_bC4eF0y' })
  svc_id: string;
  @ApiProperty({ type: String, nullable: true, example: 'facebook' })
  channel: string | null;
  @ApiProperty({ type: String, nullable: true })
  sharer_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  user_id: string | null;
  @ApiProperty({ type: ChainOwnDto })
  own: ChainOwnDto;
  @ApiProperty({ type: ChainDownstreamDto })
  downstream: ChainDownstreamDto;
}

/** stats/{svc_id}/chain.json (extension; docs/api.md, "Share chains"). */
export class ChainResponseDto {
  @ApiProperty({ example: 'svc.example_aB3dE9x' })
  svc_id: string;
  @ApiProperty({ description: "The root's svc_id (the link's own without a parent)" })
  root: string;
  @ApiProperty({ description: 'Generations below its root (0 for a root)', example: 0 })
  depth: number;
  @ApiProperty({ type: String, nullable: true })
  start_date: string | null;
  @ApiProperty({ type: String, nullable: true })
  end_date: string | null;
  @ApiProperty()
  with_conversions: boolean;
  @ApiProperty({ type: ChainOwnDto })
  own: ChainOwnDto;
  @ApiProperty({ type: ChainDownstreamDto })
  downstream: ChainDownstreamDto;
  @ApiProperty({ type: [ChainGenerationDto] })
  generations: ChainGenerationDto[];
  @ApiProperty({ type: Number, nullable: true, description: 'null when paged by offset' })
  page: number | null;
  @ApiProperty()
  per_page: number;
  @ApiProperty()
  offset: number;
  @ApiProperty({ description: 'Direct children in all' })
  total_results: number;
  @ApiProperty({ type: [ChainChildDto] })
  children: ChainChildDto[];
}
