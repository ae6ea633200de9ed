import { useState } from 'preact/hooks';
import { clicksOnly, scopeQuery, type StatsScope } from './stats-table';
import { Field } from './ui';

type Kind = 'clicks' | 'conversions' | 'links';
type Format = 'csv' | 'ndjson' | 'parquet';

const KINDS: [Kind, string][] = [
  ['clicks', 'Clicks'],
  ['conversions', 'Conversions'],
  ['links', 'Links shared in the period'],
];
const FORMATS: [Format, string][] = [
  ['csv', 'CSV'],
  ['ndjson', 'NDJSON'],
  ['parquet', 'Parquet'],
];

/**
 * Exports what the dashboard shows (docs/api.md, "Export"): its period and filters, as a file
 * the browser downloads. A form the browser posts itself: the key travels in the body, never in a
 * URL, and the file streams to disk without passing through the page. Links have no visitor
 * filters: with one set, only clicks and conversions are offered.
 */
export function ExportForm({ scope }: { scope: StatsScope }) {
  const [kind, setKind] = useState<Kind>('clicks');
  const [format, setFormat] = useState<Format>('csv');
  const visitors = clicksOnly(scope);
  const chosen = visitors && kind === 'links' ? 'clicks' : kind;
  // Attribution is the statistics' own: an export lists each event under the link clicked.
  const { attribution: _attribution, ...query } = scopeQuery(scope);
  return (
    <form
      class="card export"
      aria-label="Export"
      method="post"
      action={`/export/${chosen}.${format}`}
    >
      {Object.entries(query).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={String(value)} />
      ))}
      <div class="grid">
        <Field id="export-kind" label="Export">
          <select
            id="export-kind"
            value={chosen}
            onChange={(e) => setKind(e.currentTarget.value as Kind)}
          >
            {KINDS.filter(([k]) => !(visitors && k === 'links')).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="export-format" label="Format">
          <select
            id="export-format"
            value={format}
            onChange={(e) => setFormat(e.currentTarget.value as Format)}
          >
            {FORMATS.map(([f, label]) => (
              <option key={f} value={f}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <button type="submit">Export what the dashboard shows</button>
    </form>
  );
}
