import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, call, type Attribution, type Schemas } from '../api/client';
import { deviceClassValues, intervalValues } from '../api/schema';
import { AmplifiersTable } from '../components/amplifiers-table';
import { TimeChart } from '../components/chart';
import { Breakdowns, FilterChips } from '../components/breakdowns';
import { ExportForm } from '../components/export-form';
import {
  StatsTable,
  clicksOnly,
  scopeQuery,
  withFilter,
  type Filters,
  type GroupField,
  type StatsScope,
} from '../components/stats-table';
import { LivePanel } from '../components/live-panel';
import { ErrorNotice, Field, Loading, field, useAsync } from '../components/ui';
import { DIMENSIONS, DIMENSION_LABELS, displayValue, isDimension } from '../dimensions';
import { browserTimeZone, nextDay, startOfDay, timeZones, today } from '../period';
import { href } from '../router';
import { projectKey } from './project';

type Interval = Schemas['Interval'];
/** The fields the dashboard filters by, each with a table of its top values. */
const FILTERS: [GroupField, string][] = [
  ['channel', 'Channel'],
  ['campaign', 'Campaign'],
  ['tag', 'Tag'],
  ['sharer_id', 'Sharer'],
];
/** The click dimensions' filters, in the form's "Visitor filters" group. */
const VISITOR_FILTERS: [GroupField, string][] = DIMENSIONS.map((d) => [
  d,
  DIMENSION_LABELS[d].name,
]);

interface Settings {
  from: string;
  to: string;
  timeZone: string;
  interval: Interval;
  filters: Filters;
  attribution: Attribution;
}

/** The attribution of a dashboard address (`?attribution=first`; last otherwise). */
export function attributionFrom(search: string): Attribution {
  return new URLSearchParams(search).get('attribution') === 'first' ? 'first' : 'last';
}

/** A project's activity in a period: totals, the chart over time, the top groups and the visitors' breakdowns. */
export function Dashboard() {
  const key = projectKey();
  const [settings, setSettings] = useState<Settings>(() => {
    const timeZone = browserTimeZone();
    return {
      from: today(timeZone, 6),
      to: today(timeZone),
      timeZone,
      interval: 'day',
      filters: {},
      attribution: attributionFrom(window.location.search),
    };
  });
  // The attribution is kept in the address (no key there), so a reload or a shared link keeps it.
  useEffect(() => {
    const search = settings.attribution === 'first' ? '?attribution=first' : '';
    window.history.replaceState(window.history.state, '', href(`/dashboard${search}`));
  }, [settings.attribution]);
  const scope: StatsScope = useMemo(
    () => ({
      key,
      start_date: startOfDay(settings.from, settings.timeZone),
      end_date: startOfDay(nextDay(settings.to), settings.timeZone),
      filters: settings.filters,
      attribution: settings.attribution,
    }),
    [key, settings],
  );
  const setFilter = (field: GroupField, value: string | null) =>
    setSettings((s) => ({ ...s, filters: withFilter(s.filters, field, value) }));
  return (
    <section>
      <h1>Dashboard</h1>
      <PeriodForm settings={settings} onChange={setSettings} />
      <AttributionSwitch
        value={settings.attribution}
        visitorFilters={clicksOnly(scope)}
        onChange={(attribution) => setSettings((s) => ({ ...s, attribution }))}
      />
      <FilterChips filters={settings.filters} onRemove={(f) => setFilter(f, null)} />
      <Totals scope={scope} />
      <ExportForm scope={scope} />
      <LivePanel apiKey={key} />
      <Chart scope={scope} interval={settings.interval} timeZone={settings.timeZone} />
      <div class="tables">
        <AmplifiersTable scope={scope} onFilter={(v) => setFilter('sharer_id', v)} />
        {FILTERS.map(([field, name]) => (
          <StatsTable
            key={field}
            title={`Top ${name.toLowerCase()}s`}
            groupBy={field}
            scope={scope}
            onFilter={(v) => setFilter(field, v)}
          />
        ))}
        <StatsTable
          title="Top links"
          groupBy="svc_id"
          scope={scope}
          wide
          linkTo={(v) => href(`/links/${encodeURIComponent(v)}`)}
        />
        <Breakdowns scope={scope} onFilter={setFilter} />
      </div>
    </section>
  );
}

function PeriodForm({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (s: Settings) => void;
}) {
  const zones = useMemo(timeZones, []);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="card period"
      aria-label="Period and filters"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const from = field(form, 'from');
        const to = field(form, 'to');
        if (!from || !to || from > to) {
          setError('Choose a start date on or before the end date');
          return;
        }
        setError(null);
        let filters: Filters = {};
        for (const [name] of [...FILTERS, ...VISITOR_FILTERS]) {
          const value = field(form, name);
          filters = withFilter(filters, name, name === 'country' ? value.toUpperCase() : value);
        }
        onChange({
          ...settings,
          from,
          to,
          timeZone: field(form, 'tz'),
          interval: field(form, 'interval') as Interval,
          filters,
        });
      }}
    >
      <div class="grid">
        <Field id="period-from" label="From">
          <input id="period-from" name="from" type="date" defaultValue={settings.from} required />
        </Field>
        <Field id="period-to" label="To (inclusive)">
          <input id="period-to" name="to" type="date" defaultValue={settings.to} required />
        </Field>
        <Field id="period-tz" label="Time zone">
          <select id="period-tz" name="tz">
            {zones.map((z) => (
              <option key={z} selected={z === settings.timeZone}>
                {z}
              </option>
            ))}
          </select>
        </Field>
        <Field id="period-interval" label="Interval">
          <select id="period-interval" name="interval">
            {intervalValues.map((i) => (
              <option key={i} selected={i === settings.interval}>
                {i}
              </option>
            ))}
          </select>
        </Field>
        {FILTERS.map(([name, label]) => (
          <FilterField
            key={`${name}-${settings.filters[name] ?? ''}`}
            name={name}
            label={label}
            value={settings.filters[name]}
          />
        ))}
      </div>
      <details open={Object.keys(settings.filters).some(isDimension)}>
        <summary>Visitor filters (country, city, device, browser, operating system, site)</summary>
        <div class="grid">
          {VISITOR_FILTERS.map(([name, label]) => (
            <FilterField
              key={`${name}-${settings.filters[name] ?? ''}`}
              name={name}
              label={label}
              value={settings.filters[name]}
              hint={name === 'country' ? 'Two letters, e.g. US' : undefined}
            />
          ))}
        </div>
      </details>
      <ErrorNotice error={error} />
      <button type="submit">Apply</button>
    </form>
  );
}

const ATTRIBUTION_CHOICES: [Attribution, string, string][] = [
  ['last', 'Last click', 'each click and conversion counts for the link clicked'],
  ['first', 'First share', 'each counts for the first share of its cascade (its root)'],
];

/**
 * Whose clicks and conversions the dashboard's figures are (docs/api.md, "Share chains
 * (extension)"): every table, the totals and the chart follow it at once.
 */
function AttributionSwitch({
  value,
  visitorFilters,
  onChange,
}: {
  value: Attribution;
  visitorFilters: boolean;
  onChange: (attribution: Attribution) => void;
}) {
  return (
    <fieldset class="card attribution-switch">
      <legend>Attribution</legend>
      {ATTRIBUTION_CHOICES.map(([choice, label, hint]) => (
        <label class="checkbox" key={choice}>
          <input
            type="radio"
            name="attribution"
            value={choice}
            checked={value === choice}
            onChange={() => onChange(choice)}
          />
          <span>
            <strong>{label}</strong>: {hint}
          </span>
        </label>
      ))}
      {value === 'first' && visitorFilters && (
        <p class="hint">
          With visitor filters every figure counts by the link clicked: first-share attribution
          credits links’ attributes, not visitors’.
        </p>
      )}
    </fieldset>
  );
}

/**
 * A filter's field: a choice of the device classes, text for the others. Keyed by its value, so
 * that a table's value or a chip's removal shows in it.
 */
function FilterField({
  name,
  label,
  value,
  hint,
}: {
  name: GroupField;
  label: string;
  value: string | undefined;
  hint?: string;
}) {
  const id = `filter-${name}`;
  return (
    <Field id={id} label={`${label} filter`} hint={hint}>
      {name === 'device' ? (
        <select id={id} name={name}>
          <option value="">Any</option>
          {deviceClassValues.map((d) => (
            <option key={d} value={d} selected={d === value}>
              {displayValue('device', d)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={name}
          defaultValue={value ?? ''}
          aria-describedby={hint ? `${id}-hint` : undefined}
        />
      )}
    </Field>
  );
}

function Totals({ scope }: { scope: StatsScope }) {
  const totals = useAsync(
    async () =>
      (
        await call(
          api.POST('/stats/range.json', {
            params: {
              query: { ...scopeQuery(scope), with_conversions: 'true' },
            },
          }),
        )
      ).totals,
    [JSON.stringify(scope)],
  );
  if (totals.error) return <ErrorNotice error={totals.error} />;
  if (!totals.data) return <Loading label="Loading totals…" />;
  const t = totals.data;
  // Filtered by a click dimension, the API has no shares (they belong to links, not clicks).
  const noShares = clicksOnly(scope);
  const figures: [string, number | null][] = [
    ['Clicks', t.clicks],
    ['Shares', noShares ? null : t.shares],
    ['Clicks per share', noShares ? null : t.clicks_per_share],
    ['Pageviews', t.conversions?.pageviews ?? 0],
    ['Conversions', t.conversions?.goal_total.count ?? 0],
    ['Conversion value', t.conversions?.goal_total.value ?? 0],
  ];
  return (
    <dl class="totals" aria-label="Totals of the period">
      {figures.map(([name, value]) => (
        <div key={name} data-total={name}>
          <dt>{name}</dt>
          <dd>
            {value === null ? (
              <abbr title="Not counted: shares belong to links, not to visitors">—</abbr>
            ) : (
              value.toLocaleString()
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Chart({
  scope,
  interval,
  timeZone,
}: {
  scope: StatsScope;
  interval: Interval;
  timeZone: string;
}) {
  const data = useAsync(
    async () =>
      call(
        api.POST('/stats/range/intervals.json', {
          params: {
            query: { ...scopeQuery(scope), interval, with_zeros: 'true', with_conversions: 'true' },
          },
        }),
      ),
    [JSON.stringify(scope), interval],
  );
  // Keyed by the answer's own interval: while a new one loads, the chart keeps showing the last.
  const shown = data.data?.interval ?? interval;
  const noShares = clicksOnly(scope);
  const series = useMemo(() => {
    const rows = data.data?.totals.intervals ?? [];
    return {
      times: rows.map((r) => Date.parse(r[shown] ?? '') / 1000),
      series: [
        { label: 'Clicks', values: rows.map((r) => r.clicks), color: '#1f5fbf' },
        // Filtered by a click dimension, the API has no shares.
        ...(noShares
          ? []
          : [{ label: 'Shares', values: rows.map((r) => r.shares ?? 0), color: '#b8470b' }]),
        {
          label: 'Conversions',
          values: rows.map((r) => r.conversions?.goal_total.count ?? 0),
          color: '#2e7d32',
        },
      ],
    };
  }, [data.data, shown, noShares]);
  return (
    <div class="card">
      <ErrorNotice error={data.error} />
      {!data.data ? (
        <Loading label="Loading the chart…" />
      ) : (
        <TimeChart
          title="Clicks, shares and conversions over time"
          times={series.times}
          series={series.series}
          timeZone={timeZone}
          intervalLabel={shown}
        />
      )}
    </div>
  );
}
