import { CLICK_DIMENSION_COLUMNS, STAMP_COLUMNS } from '../analytics/analytics-schema';
import { StampFields, UNSTAMPED_FIELDS, stampFields } from '../analytics/link-stamps';
import {
  FixedColumn,
  LowCardinalityArrayColumn,
  LowCardinalityColumn,
  NATIVE_TYPES,
  NativeBlock,
  NativeColumn,
  NativeType,
  NullableStringColumn,
  nativeColumn,
  uint64Bytes,
  utf8Bytes,
  uuidBytes,
} from '../analytics/native-block';
import { IdArrayColumn, idsBytes } from '../analytics/native-id-array';
import { IpMode, storedIp } from '../common/ip';
import type { VisitorStorage } from '../common/visitor-storage';
import { AgentInfo, BatchDescription, NO_AGENT, Place } from '../enrichment/click-enricher';
import { ClickColumns } from './click-event';

/**
 * The columns of `clicks` that a click's row holds, with their types, in the order of a row: the
 * click, its link's stamp (STAMP_COLUMNS: the link's and its chain's), then its dimensions and `enriched`. The types are
 * the table's (analytics-schema.ts; analytics-native-block.e2e-spec.ts compares them), so the engine
 * stores the values without converting them.
 */
export const CLICK_COLUMN_TYPES: readonly (readonly [string, NativeType])[] = [
  ['project_id', 'UUID'],
  ['link_id', 'UInt64'],
  ['clicked_at', "DateTime64(3, 'UTC')"],
  ['click_id', 'UUID'],
  ['referrer', 'Nullable(String)'],
  ['user_agent', 'Nullable(String)'],
  ['ip', 'Nullable(String)'],
  ['is_bot', 'UInt8'],
  ...STAMP_COLUMNS.map(([name, type]) => [name, nativeType(type)] as const),
  ...CLICK_DIMENSION_COLUMNS.map((name) => [name, 'LowCardinality(Nullable(String))'] as const),
  ['enriched', 'UInt8'],
];

function nativeType(type: string): NativeType {
  if (!(NATIVE_TYPES as readonly string[]).includes(type))
    throw new Error(`a stamp column of type ${type} has no Native writer`);
  return type as NativeType;
}

/** A link's stamp as its block writes it: each field encoded or placed in its column's dictionary once. */
type StampValue = Uint8Array | number | readonly number[] | null;

/** How a stamp field is written: by its column's type. */
type StampKind = 'bytes' | 'byte' | 'time' | 'position' | 'positions' | 'string' | 'ids';

/**
 * The clicks of a block as a Native block of `clicks` (CLICK_COLUMN_TYPES), batch after batch: what
 * the embedded store inserts without parsing text (ClicksRepository). Each batch's distinct
 * projects, referrers, user agents, addresses, places and links are encoded or placed in their
 * column's dictionary once, and each click row is then positions and copies.
 */
export class ClickNativeBlock {
  readonly block: NativeBlock;
  private readonly project: FixedColumn;
  private readonly link: FixedColumn;
  private readonly clickedAt: FixedColumn;
  private readonly clickId: FixedColumn;
  private readonly referrer: NullableStringColumn;
  private readonly userAgent: NullableStringColumn;
  private readonly ip: NullableStringColumn;
  private readonly isBot: FixedColumn;
  private readonly stamp: NativeColumn[];
  private readonly stampKinds: StampKind[];
  private readonly place: LowCardinalityColumn[];
  private readonly agent: LowCardinalityColumn[];
  private readonly referrerHost: LowCardinalityColumn;
  private readonly enriched: FixedColumn;
  /**
   * The dictionary positions of each place and agent description in this block, by the object
   * itself: the geolocation lookup makes one Place per database record and the agent parser one
   * AgentInfo per agent it keeps, so a batch's thousands of addresses of a few hundred cities cost a
   * look-up each rather than three.
   */
  private readonly placePositions = new Map<Place | null, number[]>();
  private readonly agentPositions = new Map<AgentInfo, number[]>();

  constructor() {
    const columns = CLICK_COLUMN_TYPES.map(([name, type]) => nativeColumn(name, type));
    this.block = new NativeBlock(columns);
    const at = (name: string) => columns[CLICK_COLUMN_TYPES.findIndex(([n]) => n === name)];
    this.project = at('project_id') as FixedColumn;
    this.link = at('link_id') as FixedColumn;
    this.clickedAt = at('clicked_at') as FixedColumn;
    this.clickId = at('click_id') as FixedColumn;
    this.referrer = at('referrer') as NullableStringColumn;
    this.userAgent = at('user_agent') as NullableStringColumn;
    this.ip = at('ip') as NullableStringColumn;
    this.isBot = at('is_bot') as FixedColumn;
    this.stamp = STAMP_COLUMNS.map(([name]) => at(name));
    this.stampKinds = STAMP_COLUMNS.map(([, type]) => stampKind(nativeType(type)));
    this.place = ['country', 'region', 'city'].map((name) => at(name) as LowCardinalityColumn);
    this.agent = ['device', 'browser', 'os'].map((name) => at(name) as LowCardinalityColumn);
    this.referrerHost = at('referrer_host') as LowCardinalityColumn;
    this.enriched = at('enriched') as FixedColumn;
  }

  get rows(): number {
    return this.block.rows;
  }

  /** Bytes of memory it holds. */
  get capacity(): number {
    return this.block.capacity;
  }

  clear(): void {
    this.block.clear();
    this.placePositions.clear();
    this.agentPositions.clear();
  }

  /** Where the block stands: the returned function takes it back there (a batch that failed half-way). */
  mark(): () => void {
    return this.block.mark();
  }

  bytes(): Buffer {
    return this.block.bytes();
  }

  /**
   * Writes the clicks of `batch` at `indexes`: each with its address and user agent as its
   * project keeps them (`storage`, by index into the batch's projects), its link's stamp (`stamps`,
   * by link id: LinkStamps; a link without one is unstamped) and its dimensions (`described`).
   * Returns whether every click carried its link's stamp.
   */
  write(
    batch: ClickColumns,
    indexes: readonly number[],
    stamps: ReadonlyMap<string, string>,
    described: BatchDescription,
    storage: readonly VisitorStorage[],
  ): boolean {
    const projects = batch.projects.map(uuidBytes);
    const referrers = batch.referrers.map(utf8Bytes);
    const agents = batch.agents.map(utf8Bytes);
    // The batch's addresses as each mode its projects use stores them, encoded once a mode; a
    // project's user agents, or none (`parsed`).
    const ipsByMode = new Map<IpMode, (Uint8Array | null)[]>();
    const ipsOf = (mode: IpMode) => {
      let stored = ipsByMode.get(mode);
      if (!stored) {
        stored = batch.ips.map((ip) => {
          const kept = storedIp(ip, mode);
          return kept === null ? null : utf8Bytes(kept);
        });
        ipsByMode.set(mode, stored);
      }
      return stored;
    };
    const projectIps = storage.map((kept) => ipsOf(kept.ip));
    const projectAgents = storage.map((kept) => (kept.userAgent === 'full' ? agents : null));
    const [country, region, city] = this.place;
    const placeOf = (place: Place | null): number[] => {
      let positions = this.placePositions.get(place);
      if (!positions) {
        positions = [
          country.position(place?.country ?? null),
          region.position(place?.region ?? null),
          city.position(place?.city ?? null),
        ];
        this.placePositions.set(place, positions);
      }
      return positions;
    };
    const places = described.places.map(placeOf);
    const noPlace = placeOf(null);
    const [device, browser, os] = this.agent;
    const agentOf = (agent: AgentInfo): number[] => {
      let positions = this.agentPositions.get(agent);
      if (!positions) {
        positions = [
          device.position(agent.device),
          browser.position(agent.browser),
          os.position(agent.os),
        ];
        this.agentPositions.set(agent, positions);
      }
      return positions;
    };
    const agentInfos = described.agents.map(agentOf);
    const noAgent = agentOf(NO_AGENT);
    const hosts = described.referrers.map((host) => this.referrerHost.position(host));
    const noHost = this.referrerHost.position(null);
    const links = new Map<string, { id: Uint8Array; stamp: StampValue[] }>();
    let stamped = true;
    const linkOf = (id: string) => {
      let entry = links.get(id);
      if (!entry) {
        const line = stamps.get(id);
        const fields = line === undefined ? UNSTAMPED_FIELDS : stampFields(line);
        if (fields === UNSTAMPED_FIELDS) stamped = false;
        entry = { id: uint64Bytes(id), stamp: fields.map((field, j) => this.stampValue(j, field)) };
        links.set(id, entry);
      }
      return entry;
    };
    const [place0, place1, place2] = this.place;
    const [agent0, agent1, agent2] = this.agent;
    for (const i of indexes) {
      const link = linkOf(batch.links[i]);
      const referrer = batch.referrer[i];
      const agent = batch.agent[i];
      const ip = batch.ip[i];
      const project = batch.project[i];
      const keptAgents = projectAgents[project];
      this.project.encoded(projects[project]);
      this.link.encoded(link.id);
      this.clickedAt.u64(batch.at[i]);
      this.clickId.uuid(batch.ids[i]);
      this.referrer.push(referrer < 0 ? null : referrers[referrer]);
      this.userAgent.push(agent < 0 || keptAgents === null ? null : keptAgents[agent]);
      this.ip.push(ip < 0 ? null : projectIps[project][ip]);
      this.isBot.u8(batch.bots[i]);
      for (let j = 0; j < this.stamp.length; j++) this.writeStamp(j, link.stamp[j]);
      const place = ip < 0 ? noPlace : places[ip];
      place0.pushPosition(place[0]);
      place1.pushPosition(place[1]);
      place2.pushPosition(place[2]);
      const info = agent < 0 ? noAgent : agentInfos[agent];
      agent0.pushPosition(info[0]);
      agent1.pushPosition(info[1]);
      agent2.pushPosition(info[2]);
      this.referrerHost.pushPosition(referrer < 0 ? noHost : hosts[referrer]);
      this.enriched.u8(1);
    }
    return stamped;
  }

  /** A stamp field as its column writes it. */
  private stampValue(j: number, field: StampFields[number]): StampValue {
    const column = this.stamp[j];
    switch (this.stampKinds[j]) {
      case 'bytes':
        return uint64Bytes(String(field));
      case 'ids':
        return idsBytes(field as readonly string[]);
      case 'byte':
      case 'time':
        return field as number;
      case 'position':
        return (column as LowCardinalityColumn).position(field as string | null);
      case 'positions':
        return (field as readonly string[]).map((v) =>
          (column as LowCardinalityArrayColumn).position(v),
        );
      case 'string':
        return field === null ? null : utf8Bytes(field as string);
    }
  }

  private writeStamp(j: number, value: StampValue): void {
    const column = this.stamp[j];
    switch (this.stampKinds[j]) {
      case 'bytes':
        (column as FixedColumn).encoded(value as Uint8Array);
        return;
      case 'ids':
        (column as IdArrayColumn).pushEncoded(value as Uint8Array);
        return;
      case 'byte':
        (column as FixedColumn).u8(value as number);
        return;
      case 'time':
        (column as FixedColumn).u64(value as number);
        return;
      case 'position':
        (column as LowCardinalityColumn).pushPosition(value as number);
        return;
      case 'positions':
        (column as LowCardinalityArrayColumn).pushPositions(value as readonly number[]);
        return;
      case 'string':
        (column as NullableStringColumn).push(value as Uint8Array | null);
    }
  }
}

function stampKind(type: NativeType): StampKind {
  switch (type) {
    case 'UInt64':
      return 'bytes';
    case 'UInt8':
      return 'byte';
    case 'Array(UInt64)':
      return 'ids';
    case "DateTime64(3, 'UTC')":
      return 'time';
    case 'LowCardinality(String)':
    case 'LowCardinality(Nullable(String))':
      return 'position';
    case 'Array(LowCardinality(String))':
      return 'positions';
    case 'Nullable(String)':
      return 'string';
    default:
      throw new Error(`a stamp column of type ${type} has no Native writer`);
  }
}
