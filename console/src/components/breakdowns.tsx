import { DIMENSION_LABELS, displayValue, isDimension, type Dimension } from '../dimensions';
import {
  StatsTable,
  fetchAllGroups,
  type Filters,
  type GroupField,
  type StatsScope,
} from './stats-table';
import { useAsync } from './ui';
import { WorldMap } from './world-map';

/** The breakdowns under the map, each a table of its own (regions are a filter only). */
const TABLES: Dimension[] = ['city', 'device', 'browser', 'os', 'referrer_host'];

/** The attribution the licence of the IP geolocation database (DB-IP City Lite, CC BY 4.0) asks for. */
export function GeolocationAttribution() {
  return (
    <p class="attribution muted">
      <a href="https://db-ip.com" target="_blank" rel="noopener">
        IP geolocation by DB-IP
      </a>
    </p>
  );
}

/** Top countries: the world map shaded by every country's clicks beside the sortable table. */
export function CountryPanel({
  scope,
  onFilter,
}: {
  scope: StatsScope;
  onFilter: (code: string) => void;
}) {
  const all = useAsync(async () => {
    const groups = await fetchAllGroups(scope, 'country');
    return groups
      .filter((g) => typeof g.country === 'string')
      .map((g): [string, number] => [g.country as string, g.clicks]);
  }, [JSON.stringify(scope)]);
  return (
    <StatsTable
      title={DIMENSION_LABELS.country.title}
      groupBy="country"
      scope={scope}
      onFilter={onFilter}
      aside={<WorldMap counts={all.data} onSelect={onFilter} />}
      footer={<GeolocationAttribution />}
    />
  );
}

/**
 * Where, on what and from which site a scope's clicks came: countries on a world map, cities,
 * devices, browsers, operating systems and referring sites; each value filters the page. Laid out
 * in a `.tables` grid (the country panel takes a whole row).
 */
export function Breakdowns({
  scope,
  onFilter,
}: {
  scope: StatsScope;
  onFilter: (field: Dimension, value: string) => void;
}) {
  return (
    <>
      <CountryPanel scope={scope} onFilter={(code) => onFilter('country', code)} />
      {TABLES.map((field) => (
        <StatsTable
          key={field}
          title={DIMENSION_LABELS[field].title}
          groupBy={field}
          scope={scope}
          onFilter={(value) => onFilter(field, value)}
        />
      ))}
    </>
  );
}

/** A filter's name in a sentence: "campaign", "sharer", "referring site". */
export function filterName(field: GroupField): string {
  if (isDimension(field)) return DIMENSION_LABELS[field].name.toLowerCase();
  return field === 'sharer_id' ? 'sharer' : field;
}

/** The filters applied to a page, each removable. */
export function FilterChips({
  filters,
  onRemove,
}: {
  filters: Filters;
  onRemove: (field: GroupField) => void;
}) {
  const entries = Object.entries(filters) as [GroupField, string][];
  if (entries.length === 0) return null;
  return (
    <ul class="chips" aria-label="Filters applied">
      {entries.map(([field, value]) => (
        <li key={field} data-filter={field}>
          {filterName(field)}: <strong>{displayValue(field, value)}</strong>{' '}
          <button
            type="button"
            onClick={() => onRemove(field)}
            aria-label={`Remove the ${filterName(field)} filter`}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
