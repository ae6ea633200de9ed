import { TestApp } from '../support/app';

let counter = 0;

/** What tests read of a project record. */
export interface CreatedProject {
  api_key: string;
  publishable_key: string;
  name: string;
  default_domain: string;
}

/** A project created through the admin API; returns its record (api_key, name, …). */
export async function createProject(
  t: TestApp,
  object: Record<string, unknown> = {},
): Promise<CreatedProject> {
  counter += 1;
  const res = await t.http
    .post('/projects/new')
    .type('form')
    .send({
      subscription_key: t.subscriptionKey,
      application_key: t.applicationKey,
      json: JSON.stringify({ name: `project_${process.pid}_${counter}`, ...object }),
    });
  if (res.status !== 200)
    throw new Error(`projects/new answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { response: { project: CreatedProject } }).response.project;
}

/** Updates a project through the admin API. */
export async function updateProject(
  t: TestApp,
  apiKey: string,
  object: Record<string, unknown>,
): Promise<void> {
  const res = await t.http
    .post(`/projects/${apiKey}/update`)
    .type('form')
    .send({
      subscription_key: t.subscriptionKey,
      application_key: t.applicationKey,
      json: JSON.stringify(object),
    });
  if (res.status !== 200)
    throw new Error(`projects/update answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Connects a custom domain through the admin API, authorised for the given projects. */
export async function connectDomain(
  t: TestApp,
  hostname: string,
  projectKeys: string[] = [],
): Promise<void> {
  const res = await t.http
    .post('/domains/new')
    .type('form')
    .send({
      subscription_key: t.subscriptionKey,
      application_key: t.applicationKey,
      json: JSON.stringify({
        hostname,
        root_redirect: `https://${hostname.replace(/_/g, '-')}.example/`,
        not_found_redirect: `https://${hostname.replace(/_/g, '-')}.example/404`,
        projects: projectKeys,
      }),
    });
  if (res.status !== 200)
    throw new Error(`domains/new answered ${res.status}: ${JSON.stringify(res.body)}`);
}
