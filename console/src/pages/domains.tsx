import { useState } from 'preact/hooks';
import { api, call, type DomainRecord, type Schemas } from '../api/client';
import { Empty, ErrorNotice, Field, Loading, useAction, field, useAsync } from '../components/ui';
import { adminKeys } from './admin';

type Creation = Schemas['DomainCreationObjectDto'];
type UpdateObject = Schemas['DomainUpdateObjectDto'];

/** Custom link domains of the subscription: connect, show, update redirects, destroy. */
export function Domains() {
  const list = useAsync(
    async () => (await call(api.POST('/domains/list', { body: adminKeys() }))).response.domains,
    [],
  );
  const projects = useAsync(
    async () => (await call(api.POST('/projects/list', { body: adminKeys() }))).response.projects,
    [],
  );
  const connect = useAction(async (json: Creation) => {
    await call(api.POST('/domains/new', { body: { ...adminKeys(), json: JSON.stringify(json) } }));
    list.reload();
    return true;
  });
  return (
    <section>
      <h1>Domains</h1>
      <form
        class="card"
        aria-labelledby="connect-title"
        onSubmit={(e) => {
          e.preventDefault();
          const formElement = e.currentTarget;
          const form = new FormData(formElement);
          const host = field(form, 'hostname');
          const segment = field(form, 'segment');
          const chosen = form.getAll('projects').map(String);
          void connect
            .run({
              hostname: segment ? `${host}_${segment}` : host,
              root_redirect: field(form, 'root_redirect'),
              not_found_redirect: field(form, 'not_found_redirect'),
              ...(chosen.length > 0 ? { projects: chosen } : {}),
            })
            .then((ok) => ok && formElement.reset());
        }}
      >
        <h2 id="connect-title">Connect a domain</h2>
        <p class="muted">
          Point the domain’s DNS at this service first. Links on it look like hostname/path, or
          hostname/segment/path with a segment.
        </p>
        <div class="grid">
          <Field id="domain-hostname" label="Hostname" hint="Without scheme, e.g. go.example.com">
            <input
              id="domain-hostname"
              name="hostname"
              required
              aria-describedby="domain-hostname-hint"
            />
          </Field>
          <Field
            id="domain-segment"
            label="Path segment (optional)"
            hint="Links become hostname/segment/path"
          >
            <input
              id="domain-segment"
              name="segment"
              pattern="[A-Za-z0-9_.~\-]*"
              aria-describedby="domain-segment-hint"
            />
          </Field>
          <Field id="domain-root" label="Root redirect" hint="Where visits with no path go">
            <input
              id="domain-root"
              name="root_redirect"
              type="url"
              required
              placeholder="https://www.example.com/"
              aria-describedby="domain-root-hint"
            />
          </Field>
          <Field
            id="domain-notfound"
            label="Not-found redirect"
            hint="Where visits with an unknown path go"
          >
            <input
              id="domain-notfound"
              name="not_found_redirect"
              type="url"
              required
              placeholder="https://www.example.com/404"
              aria-describedby="domain-notfound-hint"
            />
          </Field>
        </div>
        {projects.data && projects.data.length > 0 && (
          <fieldset>
            <legend>Authorise projects</legend>
            {projects.data.map((p) => (
              <label class="checkbox" key={p.api_key}>
                <input type="checkbox" name="projects" value={p.api_key} /> {p.name}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorNotice error={connect.error} />
        <button type="submit" disabled={connect.pending}>
          Connect domain
        </button>
      </form>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? (
        <Loading label="Loading domains…" />
      ) : list.data?.length === 0 ? (
        <Empty>No custom domain yet: links use the shared default domain.</Empty>
      ) : (
        list.data?.map((d) => <DomainCard key={d.hostname} domain={d} onChange={list.reload} />)
      )}
    </section>
  );
}

function DomainCard({ domain, onChange }: { domain: DomainRecord; onChange: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { hostname: domain.hostname } } };
  const update = useAction(async (json: UpdateObject) => {
    await call(
      api.POST('/domains/{hostname}/update', {
        ...path,
        body: { ...adminKeys(), json: JSON.stringify(json) },
      }),
    );
    onChange();
  });
  const destroy = useAction(async () => {
    await call(api.POST('/domains/{hostname}/destroy', { ...path, body: adminKeys() }));
    onChange();
  });
  const [host, segment] = domain.hostname.split('_');
  const id = domain.hostname.replace(/[^A-Za-z0-9]/g, '-');
  return (
    <article class="card" aria-labelledby={`${id}-title`} data-domain={domain.hostname}>
      <h2 id={`${id}-title`}>{domain.hostname}</h2>
      <dl class="facts">
        <dt>Links</dt>
        <dd>
          {host}/{segment ? `${segment}/` : ''}…
        </dd>
        <dt>Projects</dt>
        <dd>{domain.projects.length > 0 ? domain.projects.join(', ') : 'none'}</dd>
        <dt>Connected</dt>
        <dd>{domain.created_at}</dd>
      </dl>
      <form
        class="grid"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          void update.run({
            root_redirect: field(form, 'root_redirect'),
            not_found_redirect: field(form, 'not_found_redirect'),
          });
        }}
      >
        <Field id={`${id}-root`} label="Root redirect">
          <input
            id={`${id}-root`}
            name="root_redirect"
            type="url"
            required
            defaultValue={domain.root_redirect}
          />
        </Field>
        <Field id={`${id}-nf`} label="Not-found redirect">
          <input
            id={`${id}-nf`}
            name="not_found_redirect"
            type="url"
            required
            defaultValue={domain.not_found_redirect}
          />
        </Field>
        <div class="actions">
          <button type="submit" disabled={update.pending}>
            Save redirects
          </button>
        </div>
      </form>
      <ErrorNotice error={update.error} />
      {confirming ? (
        <div class="confirm" role="group" aria-label={`Confirm destroying ${domain.hostname}`}>
          <p>
            Destroy <strong>{domain.hostname}</strong>? The service refuses while a project uses it
            as its default domain.
          </p>
          <button
            type="button"
            class="danger"
            onClick={() => void destroy.run()}
            disabled={destroy.pending}
          >
            Destroy {domain.hostname}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Destroy…
        </button>
      )}
      <ErrorNotice error={destroy.error} />
    </article>
  );
}
