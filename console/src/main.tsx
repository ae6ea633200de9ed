import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { href, navigate, onLinkClick, usePath } from './router';
import { session } from './session';
import { SignIn } from './pages/sign-in';
import { Projects } from './pages/projects';
import { ProjectSettings } from './pages/project-settings';
import { Domains } from './pages/domains';
import { Links } from './pages/links';
import { Dashboard } from './pages/dashboard';
import { LinkPage } from './pages/link-page';
import { Webhooks } from './pages/webhooks';
import { Privacy } from './pages/privacy';

function Page({ path, onSession }: { path: string; onSession: () => void }) {
  const admin = session.admin();
  const project = session.project();
  if (path === '/' || path === '/sign-in' || (!admin && !project))
    return <SignIn onSignedIn={onSession} />;
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  switch (segments[0]) {
    case 'projects':
      if (!admin) return <NeedsAdmin />;
      if (segments[1] && segments[2] === 'webhooks') return <Webhooks apiKey={segments[1]} />;
      if (segments[1] && segments[2] === 'privacy') return <Privacy apiKey={segments[1]} />;
      return segments[1] ? (
        <ProjectSettings apiKey={segments[1]} onSession={onSession} />
      ) : (
        <Projects onSession={onSession} />
      );
    case 'domains':
      return admin ? <Domains /> : <NeedsAdmin />;
    case 'links':
      if (!project) return <NeedsProject />;
      return segments[1] ? <LinkPage svcId={segments[1]} /> : <Links />;
    case 'dashboard':
      return project ? <Dashboard /> : <NeedsProject />;
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            <a href={href('/')}>Back to the start</a>
          </p>
        </section>
      );
  }
}

function NeedsAdmin() {
  return (
    <section>
      <h1>Administration</h1>
      <p>
        This page needs a subscription key and an application key.{' '}
        <a href={href('/sign-in')}>Sign in for administration</a>.
      </p>
    </section>
  );
}

function NeedsProject() {
  return (
    <section>
      <h1>No project chosen</h1>
      <p>
        Sign in with a project’s API key, or open a project from the{' '}
        <a href={href('/projects')}>projects</a> list.
      </p>
    </section>
  );
}

function App() {
  const path = usePath();
  const [, setVersion] = useState(0);
  // After a client-side navigation, focus moves to the new page's content (as a page load would).
  const mainRef = useRef<HTMLElement>(null);
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) mainRef.current?.focus();
  }, [path]);
  const refresh = () => setVersion((v) => v + 1);
  const admin = session.admin();
  const project = session.project();
  const signOut = () => {
    session.clear();
    navigate('/sign-in');
    refresh();
  };
  const nav: [string, string, boolean][] = [
    ['/projects', 'Projects', !!admin],
    ['/domains', 'Domains', !!admin],
    ['/links', 'Links', !!project],
    ['/dashboard', 'Dashboard', !!project],
  ];
  return (
    <div class="app" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href(admin ? '/projects' : '/dashboard')}>
          svc console
        </a>
        {(admin || project) && (
          <nav aria-label="Main">
            <ul>
              {nav
                .filter(([, , shown]) => shown)
                .map(([to, label]) => (
                  <li key={to}>
                    <a href={href(to)} aria-current={path.startsWith(to) ? 'page' : undefined}>
                      {label}
                    </a>
                  </li>
                ))}
            </ul>
          </nav>
        )}
        {project && (
          <span class="current-project" title="Current project">
            Project: <strong>{project.name ?? `${project.api_key.slice(0, 8)}…`}</strong>
          </span>
        )}
        {(admin || project) && (
          <button type="button" class="link-button" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>
        <Page path={path} onSession={refresh} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
