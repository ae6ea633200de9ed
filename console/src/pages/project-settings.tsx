import { useState } from 'preact/hooks';
import { api, call, type ProjectRecord, type Schemas } from '../api/client';
import { projectRoleValues } from '../api/schema';
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
import { adminKeys, useProject } from './admin';

type UpdateObject = Schemas['ProjectUpdateObjectDto'];
type Role = Schemas['ProjectRole'];
const GOALS = [1, 2, 3, 4, 5] as const;

/** One project's settings: name, conversions, domains, users, and destroy. */
export function ProjectSettings({ apiKey, onSession }: { apiKey: string; onSession: () => void }) {
  const project = useProject(apiKey);
  const domains = useAsync(
    async () => (await call(api.POST('/domains/list', { body: adminKeys() }))).response.domains,
    [],
  );
  const update = async (json: UpdateObject) => {
    await call(
      api.POST('/projects/{api_key}/update', {
        params: { path: { api_key: apiKey } },
        body: { ...adminKeys(), json: JSON.stringify(json) },
      }),
    );
    project.reload();
  };
  if (project.error) {
    return (
      <section>
        <h1>Project settings</h1>
        <ErrorNotice error={project.error} />
        <a href={href('/projects')}>Back to projects</a>
      </section>
    );
  }
  if (!project.data) return <Loading label="Loading the project…" />;
  const p = project.data;
  return (
    <section>
      <p>
        <a href={href('/projects')}>← Projects</a>
      </p>
      <h1>Project {p.name}</h1>
      <p>
        <a href={href(`/projects/${apiKey}/webhooks`)}>Webhooks of {p.name}</a>
        {' · '}
        <a href={href(`/projects/${apiKey}/privacy`)}>Privacy of {p.name}</a>
      </p>
      <div class="columns">
        <Rename project={p} update={update} />
        <Conversions project={p} update={update} />
      </div>
      <TrackingScript project={p} update={update} />
      <PublishableHosts project={p} update={update} />
      <ProjectDomains
        project={p}
        connected={domains.data?.map((d) => d.hostname) ?? []}
        update={update}
      />
      <Users project={p} update={update} />
      <Destroy project={p} onSession={onSession} />
    </section>
  );
}

type Update = (json: UpdateObject) => Promise<void>;

function Rename({ project, update }: { project: ProjectRecord; update: Update }) {
  const action = useAction(update);
  return (
    <form
      class="card"
      aria-labelledby="rename-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run({ name: field(new FormData(e.currentTarget), 'name') });
      }}
    >
      <h2 id="rename-title">Name</h2>
      <Field id="rename" label="Project name">
        <input
          id="rename"
          name="name"
          defaultValue={project.name}
          required
          pattern="[A-Za-z0-9_\-]+"
        />
      </Field>
      <ErrorNotice error={action.error} />
      <button type="submit" disabled={action.pending}>
        Rename
      </button>
    </form>
  );
}

function Conversions({ project, update }: { project: ProjectRecord; update: Update }) {
  const action = useAction(update);
  const c = project.conversions;
  const domains = c ? (c.domains === 'all' ? 'all' : c.domains.join(', ')) : '';
  return (
    <form
      class="card"
      aria-labelledby="conversions-title"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const text = field(form, 'domains');
        const wanted = text === 'all' ? 'all' : text.split(/[\s,]+/).filter(Boolean);
        const current = c?.domains === 'all' ? ['all'] : (c?.domains ?? []);
        const removed = current.filter(
          (d) => d !== 'all' && (wanted === 'all' || !wanted.includes(d)),
        );
        const conversions: UpdateObject['conversions'] = {
          enabled: form.get('enabled') === 'on',
          ...(wanted === 'all' || wanted.length > 0 ? { domains: wanted } : {}),
          ...(removed.length > 0 ? { remove_domain: removed } : {}),
        };
        for (const n of GOALS) {
          const label = field(form, `goal_${n}_label`);
          conversions[`goal_${n}_label`] = label === '' ? null : label;
        }
        void action.run({ conversions });
      }}
    >
      <h2 id="conversions-title">Conversions</h2>
      <div class="field checkbox">
        <input
          id="conv-enabled"
          name="enabled"
          type="checkbox"
          defaultChecked={c?.enabled ?? false}
        />
        <label for="conv-enabled">Record conversions</label>
      </div>
      <Field
        id="conv-domains"
        label="Conversion domains"
        hint="Hostnames separated by commas, or all for every redirection."
      >
        <input
          id="conv-domains"
          name="domains"
          defaultValue={domains}
          aria-describedby="conv-domains-hint"
        />
      </Field>
      {GOALS.map((n) => (
        <Field id={`goal-${n}`} label={`Goal ${n} label`} key={n}>
          <input
            id={`goal-${n}`}
            name={`goal_${n}_label`}
            maxLength={256}
            defaultValue={c?.[`goal_${n}_label`] ?? ''}
          />
        </Field>
      ))}
      <ErrorNotice error={action.error} />
      <button type="submit" disabled={action.pending}>
        Save conversion settings
      </button>
    </form>
  );
}

/**
 * The landing pages' snippet. It carries the publishable key, never the API key: a page publishes
 * it to anyone (docs/api.md, "Keys").
 */
function TrackingScript({ project, update }: { project: ProjectRecord; update: Update }) {
  const action = useAction(update);
  const key = project.publishable_key;
  const snippet = `<script src="${location.origin}/svc.js" data-key="${key}"></script>`;
  return (
    <div class="card">
      <h2>Tracking script</h2>
      <p>
        Put this on your landing pages to record conversions. Its key is the project’s publishable
        key: it may record conversions and create links through retweet and share, nothing else.
        Never put the API key in a page.
      </p>
      <pre class="snippet">
        <code>{snippet}</code>
      </pre>
      <CopyButton text={snippet} what="the tracking script" />
      <p>
        Publishable key: <code>{key}</code>
      </p>
      <ErrorNotice error={action.error} />
      <button
        type="button"
        disabled={action.pending}
        onClick={() => {
          if (confirm('The current publishable key stops working at once. Rotate it?')) {
            void action.run({ rotate_publishable_key: true });
          }
        }}
      >
        Rotate the publishable key
      </button>
    </div>
  );
}

/**
 * publishable_hosts: where links made with the publishable key (retweet and share from a page)
 * may lead and redirect; none listed, the publishable key makes no links (docs/api.md, "Keys").
 */
function PublishableHosts({ project, update }: { project: ProjectRecord; update: Update }) {
  const action = useAction(update);
  return (
    <form
      class="card"
      aria-labelledby="publishable-hosts-title"
      onSubmit={(e) => {
        e.preventDefault();
        const text = field(new FormData(e.currentTarget), 'publishable_hosts');
        void action.run({ publishable_hosts: text.split(/[\s,]+/).filter(Boolean) });
      }}
    >
      <h2 id="publishable-hosts-title">Links from pages</h2>
      <Field
        id="publishable-hosts"
        label="Hosts the publishable key may link to"
        hint="Hostnames separated by commas; each covers its subdomains. Retweet and share from a page make links, and redirect, only to these hosts; with none, the publishable key makes no links."
      >
        <input
          id="publishable-hosts"
          name="publishable_hosts"
          defaultValue={(project.publishable_hosts ?? []).join(', ')}
          aria-describedby="publishable-hosts-hint"
          placeholder="example.com, twitter.com"
        />
      </Field>
      <ErrorNotice error={action.error} />
      <button type="submit" disabled={action.pending}>
        Save hosts
      </button>
    </form>
  );
}

function ProjectDomains({
  project,
  connected,
  update,
}: {
  project: ProjectRecord;
  connected: string[];
  update: Update;
}) {
  const action = useAction(update);
  const addable = connected.filter((d) => !project.domains.includes(d));
  return (
    <div class="card">
      <h2>Domains</h2>
      <ul class="plain">
        {project.domains.map((d) => (
          <li key={d}>
            {d} {d === project.default_domain && <span class="badge">default</span>}{' '}
            {d !== project.default_domain && (
              <>
                <button type="button" onClick={() => void action.run({ default_domain: d })}>
                  Make default
                </button>{' '}
                <button
                  type="button"
                  onClick={() => void action.run({ remove_domain: [d] })}
                  aria-label={`Remove ${d}`}
                >
                  Remove
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      {addable.length > 0 ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run({ domains: [field(new FormData(e.currentTarget), 'domain')] });
          }}
        >
          <Field id="add-domain" label="Authorise a connected domain">
            <select id="add-domain" name="domain">
              {addable.map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          </Field>
          <button type="submit" disabled={action.pending}>
            Add domain
          </button>
        </form>
      ) : (
        <p class="muted">
          Every connected domain is authorised. <a href={href('/domains')}>Connect a domain</a>.
        </p>
      )}
      <ErrorNotice error={action.error} />
    </div>
  );
}

function Users({ project, update }: { project: ProjectRecord; update: Update }) {
  const action = useAction(update);
  const withRole = (list: Schemas['UserRecordDto'][], role: Role) =>
    list.map((u) => ({ ...u, role }));
  const users = [
    ...withRole(project.admins, 'admin'),
    ...withRole(project.sharers, 'sharer'),
    ...withRole(project.viewers, 'viewer'),
  ];
  return (
    <div class="card">
      <h2>Users and roles</h2>
      {users.length === 0 ? (
        <Empty>No users. Invite someone by e-mail below.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="data" aria-label="Users">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.sharer_id}>
                  <th scope="row">{u.username}</th>
                  <td>{u.email}</td>
                  <td>
                    <select
                      aria-label={`Role of ${u.username}`}
                      value={u.role}
                      onChange={(e) =>
                        void action.run({
                          change_role: [{ user: u.sharer_id, role: e.currentTarget.value as Role }],
                        })
                      }
                    >
                      {projectRoleValues.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() => void action.run({ remove_user: [u.sharer_id] })}
                      aria-label={`Remove ${u.username}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const email = field(form, 'email');
          const role = field(form, 'role') as Role;
          void action.run(
            role === 'admin'
              ? { admins: [email] }
              : role === 'sharer'
                ? { sharers: [email] }
                : { viewers: [email] },
          );
        }}
      >
        <Field id="invite-email" label="Invite by e-mail">
          <input id="invite-email" name="email" type="email" required />
        </Field>
        <Field id="invite-role" label="Role">
          <select id="invite-role" name="role">
            {projectRoleValues.map((r) => (
              <option key={r} selected={r === 'viewer'}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={action.pending}>
          Invite
        </button>
      </form>
      <ErrorNotice error={action.error} />
    </div>
  );
}

function Destroy({ project, onSession }: { project: ProjectRecord; onSession: () => void }) {
  const [typed, setTyped] = useState('');
  const action = useAction(async () => {
    await call(
      api.POST('/projects/{api_key}/destroy', {
        params: { path: { api_key: project.api_key } },
        body: adminKeys(),
      }),
    );
    if (session.project()?.api_key === project.api_key) session.setProject(null);
    onSession();
    navigate('/projects');
  });
  return (
    <form
      class="card danger"
      aria-labelledby="destroy-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="destroy-title">Destroy project {project.name}</h2>
      <p>
        This stops the project’s API key at once. A project with users cannot be destroyed: remove
        them first. Type <strong>{project.name}</strong> to confirm.
      </p>
      <Field id="destroy-confirm" label={`Type ${project.name} to confirm`}>
        <input
          id="destroy-confirm"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
        />
      </Field>
      <ErrorNotice error={action.error} />
      <button type="submit" class="danger" disabled={typed !== project.name || action.pending}>
        Destroy {project.name}
      </button>
    </form>
  );
}
