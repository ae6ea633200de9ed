import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TestApp } from './app';
import { createProject } from '../factories/projects';

/** POSTs an administration form with the test app's keys and, when given, `json`. */
export function adminCaller(t: TestApp) {
  return (route: string, json?: unknown) =>
    t.http
      .post(route)
      .type('form')
      .send({
        subscription_key: t.subscriptionKey,
        application_key: t.applicationKey,
        ...(json === undefined ? {} : { json: JSON.stringify(json) }),
      });
}

/** A new project's API key and id. */
export async function projectWithId(t: TestApp): Promise<{ key: string; id: string }> {
  const { api_key: key } = await createProject(t);
  const { rows } = await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [
    key,
  ]);
  return { key, id: rows[0].id };
}

/** A user with this address, made an admin of the project (who the disabled-webhook mail goes to). */
export async function addProjectAdmin(t: TestApp, projectId: string, email: string): Promise<void> {
  await t.db.query(
    `INSERT INTO users (id, email, username, name)
     VALUES (gen_random_uuid(), $1, $1, 'Admin')`,
    [email],
  );
  await t.db.query(
    `INSERT INTO project_users (project_id, user_id, role)
     SELECT $1, id, 'admin' FROM users WHERE email = $2`,
    [projectId, email],
  );
}

/** The outbox's messages that mention `text`: each file's name and content. */
export function outboxMails(t: TestApp, text: string): { file: string; mail: string }[] {
  const outbox = t.config.outboxDir;
  return readdirSync(outbox)
    .map((file) => ({ file, mail: readFileSync(path.join(outbox, file), 'utf8') }))
    .filter(({ mail }) => mail.includes(text));
}
