import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { adminKeys } from '../pages/admin';
import { Empty, ErrorNotice, Loading, useAsync } from './ui';

type Erasure = Schemas['ErasureRecordDto'];
const PER_PAGE = 10;

/** The rows an erasure changed in one store, all tables together. */
export function rowsOf(tables: Record<string, number>): number {
  return Object.values(tables).reduce((sum, n) => sum + n, 0);
}

/** A store's rows as a cell: the total, then the tables that had something to blank. */
function StoreRows({ tables }: { tables: Record<string, number> }) {
  const changed = Object.entries(tables).filter(([, n]) => n > 0);
  return (
    <>
      {rowsOf(tables)}
      {changed.length > 0 && (
        <span class="muted"> ({changed.map(([table, n]) => `${table} ${n}`).join(', ')})</span>
      )}
    </>
  );
}

/**
 * The project's audit of erasures (`/projects/{api_key}/erasures`), newest first, a page at a
 * time: when, what kind of identifier (never its value), the rows changed per store.
 */
export function ErasureList({ apiKey }: { apiKey: string }) {
  const [page, setPage] = useState(1);
  const list = useAsync(
    async () =>
      (
        await call(
          api.POST('/projects/{api_key}/erasures', {
            params: { path: { api_key: apiKey } },
            body: { ...adminKeys(), per_page: String(PER_PAGE), page: String(page) },
          }),
        )
      ).response,
    [apiKey, page],
  );
  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total_results / PER_PAGE)) : 1;
  return (
    <section class="card erasures" aria-labelledby="erasures-title">
      <h2 id="erasures-title">Past erasures</h2>
      <ErrorNotice error={list.error} />
      {list.loading && !data ? (
        <Loading label="Loading erasures…" />
      ) : data && data.total_results === 0 ? (
        <Empty>No erasure yet.</Empty>
      ) : (
        data && (
          <>
            <div class="table-wrap">
              <table class="data" aria-label="Past erasures">
                <thead>
                  <tr>
                    <th scope="col">Erased at (UTC)</th>
                    <th scope="col">By</th>
                    <th scope="col">PostgreSQL rows</th>
                    <th scope="col">Analytics rows</th>
                    <th scope="col">Complete</th>
                    <th scope="col">Erasure id</th>
                  </tr>
                </thead>
                <tbody>
                  {data.erasures.map((e: Erasure) => (
                    <tr key={e.id} data-erasure-id={e.id}>
                      <th scope="row">{e.erased_at}</th>
                      <td>{e.by}</td>
                      <td>
                        <StoreRows tables={e.rows.postgresql} />
                      </td>
                      <td>
                        <StoreRows tables={e.rows.analytics} />
                      </td>
                      <td>{e.complete ? 'yes' : 'no'}</td>
                      <td class="break">
                        <code>{e.id}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav class="pager" aria-label="Past erasures pages">
              <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>
                Previous
              </button>
              <span>
                Page {page} of {pages} ({data.total_results} in all)
              </span>
              <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages}>
                Next
              </button>
            </nav>
          </>
        )
      )}
      <p class="muted">
        The audit holds no personal data: the kind of identifier, never its value, not even hashed.
      </p>
    </section>
  );
}
