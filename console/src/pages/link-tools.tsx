import { useState } from 'preact/hooks';
import { api, call, type LinkRecord } from '../api/client';
import { knownChannelValues } from '../api/schema';
import { CopyButton, ErrorNotice, Field, field, useAction } from '../components/ui';
import { href, navigate } from '../router';
import { projectKey } from './project';

/** The tool key the console's links are created and updated with (an unknown key is registered on first use). */
export const TOOL = 'console';

/** The channel of a new link, among the known channels (email first chosen). */
export function ChannelPicker({ id, name = 'channel' }: { id: string; name?: string }) {
  return (
    <Field id={id} label="Channel" hint="Where the link is shared; its service follows from it.">
      <select id={id} name={name} aria-describedby={`${id}-hint`}>
        {knownChannelValues.map((c) => (
          <option key={c} selected={c === 'email'}>
            {c}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** Splits CSV text (quoted fields, "" escapes) into rows. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

type Row = Record<string, string>;

/**
 * Many links at once. The batch endpoint takes an array for one parameter only: rows that differ in
 * their URL alone go in one batch call; rows that differ in more are created one by one.
 */
export function Batch({ onCreated }: { onCreated: () => void }) {
  const [links, setLinks] = useState<LinkRecord[]>([]);
  const batch = useAction(async (load: () => Promise<Row[]>, channel: string) => {
    const rows = await load();
    if (rows.length === 0)
      throw new Error('Nothing to create: paste URLs (one a line) or choose a CSV file');
    if (rows.length > 1000) throw new Error('At most 1000 links at once');
    const key = projectKey();
    const fields = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((f) => f !== 'url');
    const uniform = fields.every((f) => rows.every((r) => r[f] === rows[0][f]));
    const made: LinkRecord[] = [];
    try {
      if (uniform) {
        const common = Object.fromEntries(
          fields.filter((f) => rows[0][f]).map((f) => [f, rows[0][f]]),
        );
        const answer = await call(
          api.POST('/url/batch.{format}', {
            params: {
              path: { format: 'json' },
              query: { v: '3', key, tool: TOOL, channel, ...common, url: rows.map((r) => r.url) },
            },
          }),
        );
        made.push(...answer.svc_urls);
      } else {
        for (const row of rows) {
          const { url, channel: own, ...rest } = row;
          const metadata = Object.fromEntries(Object.entries(rest).filter(([, v]) => v));
          made.push(
            await call(
              api.POST('/url.{format}', {
                params: {
                  path: { format: 'json' },
                  query: { v: '3', key, tool: TOOL, channel: own || channel, url, ...metadata },
                },
              }),
            ),
          );
        }
      }
    } finally {
      // Links made before a refused row are listed too.
      if (made.length > 0) onCreated();
    }
    setLinks(made);
  });
  const [file, setFile] = useState<File | null>(null);
  return (
    <form
      class="card"
      aria-labelledby="batch-title"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const channel = field(form, 'channel');
        const load = async (): Promise<Row[]> => {
          if (file) {
            const [header = [], ...data] = parseCsv(await file.text());
            const names = header.map((h) => h.trim().toLowerCase());
            if (!names.includes('url')) throw new Error('The CSV file needs a url column');
            return data.map((cells) =>
              Object.fromEntries(names.map((n, i) => [n, (cells[i] ?? '').trim()])),
            );
          }
          const lines = field(form, 'lines')
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter(Boolean);
          return lines.map((url) => ({ url }));
        };
        void batch.run(load, channel);
      }}
    >
      <h2 id="batch-title">Create many links (batch)</h2>
      <div class="grid">
        <Field id="batch-lines" label="URLs, one a line">
          <textarea
            id="batch-lines"
            name="lines"
            rows={4}
            placeholder={'https://example.com/a\nhttps://example.com/b'}
          />
        </Field>
        <Field
          id="batch-file"
          label="…or a CSV file"
          hint="Header row with url and optionally channel, campaign, tag, notes, sharer_id, user_id, parent, domain, path"
        >
          <input
            id="batch-file"
            type="file"
            accept=".csv,text/csv"
            aria-describedby="batch-file-hint"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </Field>
        <ChannelPicker id="batch-channel" />
      </div>
      <ErrorNotice error={batch.error} />
      <button type="submit" disabled={batch.pending}>
        {batch.pending ? 'Creating…' : 'Create links'}
      </button>
      {links.length > 0 && (
        <div class="table-wrap">
          <table class="data" aria-label="Links created">
            <thead>
              <tr>
                <th scope="col">Short link</th>
                <th scope="col">Goes to</th>
                <th scope="col">
                  <span class="visually-hidden">Copy</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {links.map((l) => (
                <tr key={l.svc_id}>
                  <th scope="row">
                    <a href={href(`/links/${encodeURIComponent(l.svc_id)}`)}>{l.svc_url}</a>
                  </th>
                  <td class="break">{l.original_url}</td>
                  <td>
                    <CopyButton text={l.svc_url} what={l.svc_url} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </form>
  );
}

/** Post information of a shared link (service:post_id, reach, shared at), within 30 days of creation. */
export function UpdatePost({ initial }: { initial: string }) {
  const [updated, setUpdated] = useState<LinkRecord | null>(null);
  const update = useAction(async (svcId: string, fields: Record<string, string>) => {
    setUpdated(
      await call(
        api.POST('/url/update/{svc_id}.{format}', {
          params: {
            path: { svc_id: svcId, format: 'json' },
            query: { v: '3', key: projectKey(), tool: TOOL, ...fields },
          },
        }),
      ),
    );
  });
  return (
    <form
      class="card"
      aria-labelledby="update-title"
      key={initial}
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const fields: Record<string, string> = {};
        for (const name of ['service_postid', 'service_postid_reach', 'service_postid_shared_at']) {
          const value = field(form, name);
          if (value) fields[name] = value;
        }
        void update.run(field(form, 'svc_id'), fields);
      }}
    >
      <h2 id="update-title">Post information of a shared link</h2>
      <p class="muted">Within 30 days of the link’s creation.</p>
      <Field id="upd-svc-id" label="Link (svc_id)">
        <input id="upd-svc-id" name="svc_id" required defaultValue={initial} />
      </Field>
      <Field id="upd-postid" label="Post (service:post_id)" hint="e.g. twitter:987654321">
        <input id="upd-postid" name="service_postid" aria-describedby="upd-postid-hint" />
      </Field>
      <Field id="upd-reach" label="Reach (followers at share time)">
        <input id="upd-reach" name="service_postid_reach" type="number" min={0} />
      </Field>
      <Field id="upd-shared" label="Shared at">
        <input id="upd-shared" name="service_postid_shared_at" type="datetime-local" />
      </Field>
      <ErrorNotice error={update.error} />
      <button type="submit" disabled={update.pending}>
        Update post information
      </button>
      {updated && (
        <p class="notice ok" role="status">
          Updated {updated.svc_id} at {updated.updated_at}.
        </p>
      )}
    </form>
  );
}

/** The svc_id a short link denotes: host and path joined by _, every / of the path as _. */
export function svcIdOf(shortUrl: string): string | null {
  try {
    const url = new URL(shortUrl.includes('://') ? shortUrl : `http://${shortUrl}`);
    const path = url.pathname.replace(/^\/+|\/+$/g, '');
    if (path === '') return null;
    return `${url.host}_${path.replace(/\//g, '_')}`;
  } catch {
    return null;
  }
}

/** Opens a link's page from its short link. */
export function FindLink() {
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="card"
      aria-labelledby="find-title"
      onSubmit={(e) => {
        e.preventDefault();
        const id = svcIdOf(field(new FormData(e.currentTarget), 'short'));
        if (!id) setError('That is not a short link: expected something like http://host/aB3dE9x');
        else navigate(`/links/${encodeURIComponent(id)}`);
      }}
    >
      <h2 id="find-title">Find a link</h2>
      <Field id="find-short" label="Short link">
        <input id="find-short" name="short" required placeholder="http://localhost:3000/aB3dE9x" />
      </Field>
      <ErrorNotice error={error} />
      <button type="submit">Open link</button>
    </form>
  );
}
