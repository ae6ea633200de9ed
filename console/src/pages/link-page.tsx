import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, call, fetchChain } from '../api/client';
import { Breakdowns, FilterChips } from '../components/breakdowns';
import { CHILDREN_PER_PAGE, CascadeSummary, CascadeTree, rootNode } from '../components/cascade';
import { LivePanel } from '../components/live-panel';
import { QrCode } from '../components/qr';
import { withFilter, type Filters, type StatsScope } from '../components/stats-table';
import { TimeChart } from '../components/chart';
import { CopyButton, ErrorNotice, Field, Loading, useAsync } from '../components/ui';
import { browserTimeZone, nextDay, startOfDay, today } from '../period';
import { href } from '../router';
import { ControlsCard } from './link-controls';
import { linksHref } from './link-list';
import { projectKey } from './project';

const GOALS = [1, 2, 3, 4, 5] as const;

/** One link: its record, controls, clicks per day, latest click, conversions, cascade of reshares and visitors. */
export function LinkPage({ svcId }: { svcId: string }) {
  const key = projectKey();
  const timeZone = browserTimeZone();
  const [days, setDays] = useState(30);
  /** The visitors' filters (a country, a device…): the chart, conversions and breakdowns follow them. */
  const [filters, setFilters] = useState<Filters>({});
  useEffect(() => setFilters({}), [svcId]);
  const details = useAsync(
    () =>
      call(
        api.POST('/stats/{svc_id}.json', {
          params: { path: { svc_id: svcId }, query: { v: '3', key, with_metadata: 'true' } },
        }),
      ),
    [svcId],
  );
  const period = useMemo(
    () => ({
      start_date: startOfDay(today(timeZone, days - 1), timeZone),
      end_date: startOfDay(nextDay(today(timeZone)), timeZone),
    }),
    [days, timeZone],
  );
  const scope: StatsScope = useMemo(
    () => ({ key, ...period, filters: { svc_id: svcId, ...filters } }),
    [key, period, svcId, filters],
  );
  const intervals = useAsync(
    () =>
      call(
        api.POST('/stats/{svc_id}/intervals.json', {
          params: {
            path: { svc_id: svcId },
            query: {
              v: '3',
              key,
              ...period,
              ...filters,
              interval: 'day',
              with_zeros: 'true',
              with_conversions: 'true',
            },
          },
        }),
      ),
    [svcId, period, filters],
  );
  /** The link's cascade, all time: its figures, generations and first page of direct reshares. */
  const chain = useAsync(
    () => fetchChain(key, svcId, { page: 1, per_page: CHILDREN_PER_PAGE }),
    [svcId],
  );
  if (details.error) {
    return (
      <section>
        <h1 class="wrap">Link {svcId}</h1>
        <ErrorNotice error={details.error} />
        <a href={linksHref()}>Back to links</a>
      </section>
    );
  }
  if (!details.data) return <Loading label="Loading the link…" />;
  const link = details.data.metadata;
  const conversions = intervals.data?.conversions;
  return (
    <section>
      <p>
        <a href={linksHref()}>← Links</a>
      </p>
      <h1 class="wrap">Link {svcId}</h1>
      <div class="columns">
        <div class="card">
          {link && (
            <>
              <p class="short-url">
                <a href={link.svc_url} target="_blank" rel="noopener noreferrer">
                  {link.svc_url}
                </a>{' '}
                <CopyButton text={link.svc_url} what="the short link" />
              </p>
              <dl class="facts">
                <dt>Goes to</dt>
                <dd class="break">{link.redirect_url}</dd>
                <dt>Channel</dt>
                <dd>{link.channel ?? '—'}</dd>
                <dt>Campaign</dt>
                <dd>{link.campaign ?? '—'}</dd>
                <dt>Tag</dt>
                <dd>{link.tag ?? '—'}</dd>
                <dt>Sharer</dt>
                <dd>{link.username ?? link.sharer_id ?? '—'}</dd>
                <dt>Notes</dt>
                <dd>{link.notes ?? '—'}</dd>
                <dt>Created</dt>
                <dd>{link.created_at}</dd>
                <dt>Post</dt>
                <dd>
                  {link.service_postid ?? '—'}
                  {link.service_postid_metadata.reach !== null &&
                    ` (reach ${link.service_postid_metadata.reach})`}
                </dd>
              </dl>
            </>
          )}
        </div>
        <div class="card">
          <dl class="totals" aria-label="Clicks of the link">
            <div data-total="All-time clicks">
              <dt>All-time clicks</dt>
              <dd>{details.data.clicks}</dd>
            </div>
            <div>
              <dt>Latest click</dt>
              <dd>
                {details.data.last_clicked_at
                  ? new Date(details.data.last_clicked_at).toLocaleString()
                  : 'none yet'}
              </dd>
            </div>
          </dl>
          {link && <QrCode text={link.svc_url} />}
        </div>
      </div>
      <LivePanel key={svcId} apiKey={key} svcId={svcId} />
      {link && (
        <ControlsCard
          key={svcId}
          link={link}
          clicks={details.data.clicks}
          onSaved={details.reload}
        />
      )}
      <div class="card">
        <FilterChips
          filters={filters}
          onRemove={(field) => setFilters((f) => withFilter(f, field, null))}
        />
        <Field id="link-days" label="Period">
          <select
            id="link-days"
            value={String(days)}
            onChange={(e) => setDays(Number(e.currentTarget.value))}
          >
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
            <option value="90">Last 90 days</option>
          </select>
        </Field>
        <ErrorNotice error={intervals.error} />
        {!intervals.data ? (
          <Loading label="Loading the chart…" />
        ) : (
          <TimeChart
            title="Clicks and conversions of this link over time"
            times={intervals.data.intervals.map((r) => Date.parse(r.day ?? '') / 1000)}
            series={[
              {
                label: 'Clicks',
                values: intervals.data.intervals.map((r) => r.clicks),
                color: '#1f5fbf',
              },
              {
                label: 'Conversions',
                values: intervals.data.intervals.map((r) => r.conversions?.goal_total.count ?? 0),
                color: '#1d6b35',
              },
            ]}
            timeZone={timeZone}
            intervalLabel="day"
          />
        )}
      </div>
      <div class="columns">
        <div class="card">
          <h2>Conversions in the period</h2>
          {!conversions ? (
            <Loading />
          ) : (
            <table class="data" aria-label="Conversions of the link">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col" class="num">
                    Count
                  </th>
                  <th scope="col" class="num">
                    Value
                  </th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">Pageviews</th>
                  <td class="num">{conversions.pageviews}</td>
                  <td class="num">—</td>
                </tr>
                {GOALS.map((n) => {
                  const goal = conversions[`goal_${n}`];
                  return (
                    <tr key={n}>
                      <th scope="row">{goal.label ?? `Goal ${n}`}</th>
                      <td class="num">{goal.count}</td>
                      <td class="num">{goal.value}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
        <section class="card" aria-labelledby="cascade-title">
          <h2 id="cascade-title">Cascade</h2>
          <p>
            Parent:{' '}
            {link?.parent ? (
              <a href={href(`/links/${encodeURIComponent(link.parent)}`)}>{link.parent}</a>
            ) : (
              'none (a first share)'
            )}
          </p>
          <ErrorNotice error={chain.error} />
          {chain.data ? <CascadeSummary chain={chain.data} /> : !chain.error && <Loading />}
        </section>
      </div>
      <section class="card" aria-labelledby="cascade-tree-title" data-cascade={svcId}>
        <h2 id="cascade-tree-title">Reshares, a level at a time</h2>
        <p class="muted">
          Each link’s own clicks, the clicks and shares of every reshare below it, and the share of
          all its clicks those reshares earned (downstream ÷ own + downstream), all time.
        </p>
        {chain.data ? (
          <CascadeTree
            key={svcId}
            apiKey={key}
            chain={chain.data}
            root={rootNode(chain.data, link)}
          />
        ) : (
          !chain.error && <Loading label="Loading the cascade…" />
        )}
      </section>
      <div class="tables">
        <Breakdowns
          scope={scope}
          onFilter={(field, value) => setFilters((f) => withFilter(f, field, value))}
        />
      </div>
    </section>
  );
}
