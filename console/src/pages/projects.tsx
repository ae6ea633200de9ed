import { api, call, type ProjectRecord } from '../api/client';
import {
  CopyButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  useAction,
  field,
  useAsync,
} from '../components/ui';
import { href, navigate } from '../router';
import { session } from '../session';
import { adminKeys } from './admin';

/** Projects of the subscription: list, create, open (links and dashboard) and settings. */
export function Projects({ onSession }: { onSession: () => void }) {
  const list = useAsync(
    async () => (await call(api.POST('/projects/list', { body: adminKeys() }))).response.projects,
    [],
  );
  const create = useAction(async (name: string) => {
    const created = await call(
      api.POST('/projects/new', { body: { ...adminKeys(), json: JSON.stringify({ name }) } }),
    );
    list.reload();
    return created.response.project;
  });
  const open = (project: ProjectRecord, to: string) => {
    session.setProject({ api_key: project.api_key, name: project.name });
    onSession();
    navigate(to);
  };
  return (
    <section>
      <h1>Projects</h1>
      <form
        class="card inline-form"
        aria-labelledby="new-project-title"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          void create.run(field(new FormData(form), 'name')).then((p) => p && form.reset());
        }}
      >
        <h2 id="new-project-title">New project</h2>
        <Field
          id="project-name"
          label="Name"
          hint="Letters, digits, _ and -; unique across the service."
        >
          <input
            id="project-name"
            name="name"
            required
            pattern="[A-Za-z0-9_\-]+"
            aria-describedby="project-name-hint"
          />
        </Field>
        <button type="submit" disabled={create.pending}>
          {create.pending ? 'Creating…' : 'Create project'}
        </button>
        <ErrorNotice error={create.error} />
      </form>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? (
        <Loading label="Loading projects…" />
      ) : list.data && list.data.length === 0 ? (
        <Empty>No project yet: create the first one above.</Empty>
      ) : (
        list.data && (
          <div class="table-wrap">
            <table class="data" aria-label="Projects">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">API key</th>
                  <th scope="col">Domains</th>
                  <th scope="col">Users</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((p) => (
                  <tr key={p.api_key} data-project={p.name}>
                    <th scope="row">{p.name}</th>
                    <td>
                      <code>{p.api_key.slice(0, 10)}…</code>{' '}
                      <CopyButton text={p.api_key} what={`the API key of ${p.name}`} />
                    </td>
                    <td>
                      {[p.default_domain, ...p.domains.filter((d) => d !== p.default_domain)].join(
                        ', ',
                      )}
                    </td>
                    <td>{p.admins.length + p.sharers.length + p.viewers.length}</td>
                    <td>{p.created_at}</td>
                    <td class="actions">
                      <button
                        type="button"
                        onClick={() => open(p, '/dashboard')}
                        aria-label={`Dashboard of ${p.name}`}
                      >
                        Dashboard
                      </button>
                      <button
                        type="button"
                        onClick={() => open(p, '/links')}
                        aria-label={`Links of ${p.name}`}
                      >
                        Links
                      </button>
                      <a
                        class="button"
                        href={href(`/projects/${p.api_key}`)}
                        aria-label={`Settings of ${p.name}`}
                      >
                        Settings
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      )}
    </section>
  );
}
