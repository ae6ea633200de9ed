/**
 * The keys the user signed in with. They live in sessionStorage only (gone when the tab closes):
 * never in a URL, a cookie or a log line.
 */
export interface AdminKeys {
  subscription_key: string;
  application_key: string;
}

export interface ProjectKey {
  api_key: string;
  /** Known when the project was picked from the administration list. */
  name: string | null;
}

const ADMIN = 'svc.console.admin';
const PROJECT = 'svc.console.project';

function read<T>(name: string): T | null {
  const text = sessionStorage.getItem(name);
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

export const session = {
  admin: (): AdminKeys | null => read<AdminKeys>(ADMIN),
  project: (): ProjectKey | null => read<ProjectKey>(PROJECT),
  setAdmin(keys: AdminKeys | null): void {
    if (keys) sessionStorage.setItem(ADMIN, JSON.stringify(keys));
    else sessionStorage.removeItem(ADMIN);
  },
  setProject(project: ProjectKey | null): void {
    if (project) sessionStorage.setItem(PROJECT, JSON.stringify(project));
    else sessionStorage.removeItem(PROJECT);
  },
  clear(): void {
    sessionStorage.removeItem(ADMIN);
    sessionStorage.removeItem(PROJECT);
  },
};
