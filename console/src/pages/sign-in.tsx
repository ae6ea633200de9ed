import { api, call } from '../api/client';
import { ErrorNotice, Field, field, useAction } from '../components/ui';
import { navigate } from '../router';
import { session } from '../session';

/** Sign in with administration keys or a project API key; each is checked against the API first. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const admin = useAction(async (subscription_key: string, application_key: string) => {
    await call(api.POST('/projects/list', { body: { subscription_key, application_key } }));
    session.setAdmin({ subscription_key, application_key });
    onSignedIn();
    navigate('/projects');
  });
  const project = useAction(async (key: string) => {
    await call(api.POST('/stats/range.json', { params: { query: { v: '3', key } } }));
    session.setProject({ api_key: key, name: null });
    onSignedIn();
    navigate('/dashboard');
  });
  return (
    <section class="sign-in">
      <h1>Sign in</h1>
      <p>
        Keys stay in this browser tab only (session storage): they are never put in a URL or a
        cookie and are gone when the tab closes.
      </p>
      <div class="columns">
        <form
          class="card"
          aria-labelledby="admin-title"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            void admin.run(field(form, 'subscription_key'), field(form, 'application_key'));
          }}
        >
          <h2 id="admin-title">Administration</h2>
          <p class="muted">Projects, users, conversion settings and domains of a subscription.</p>
          <Field id="subscription_key" label="Subscription key">
            <input
              id="subscription_key"
              name="subscription_key"
              required
              autoComplete="off"
              spellcheck={false}
            />
          </Field>
          <Field id="application_key" label="Application key">
            <input
              id="application_key"
              name="application_key"
              type="password"
              required
              autoComplete="off"
            />
          </Field>
          <ErrorNotice error={admin.error} />
          <button type="submit" disabled={admin.pending}>
            {admin.pending ? 'Checking…' : 'Sign in for administration'}
          </button>
        </form>
        <form
          class="card"
          aria-labelledby="project-title"
          onSubmit={(e) => {
            e.preventDefault();
            void project.run(field(new FormData(e.currentTarget), 'api_key'));
          }}
        >
          <h2 id="project-title">Project</h2>
          <p class="muted">Links and statistics of one project.</p>
          <Field id="api_key" label="Project API key">
            <input id="api_key" name="api_key" type="password" required autoComplete="off" />
          </Field>
          <ErrorNotice error={project.error} />
          <button type="submit" disabled={project.pending}>
            {project.pending ? 'Checking…' : 'Sign in to the project'}
          </button>
        </form>
      </div>
    </section>
  );
}
