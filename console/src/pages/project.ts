import { session } from '../session';

/** The current project's API key (pages that call this are shown only with a project chosen). */
export function projectKey(): string {
  const project = session.project();
  if (!project) throw new Error('Choose a project first');
  return project.api_key;
}
