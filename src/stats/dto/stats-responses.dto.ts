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
] as const;

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
