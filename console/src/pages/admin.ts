import { api, call } from '../api/client';
import { useAsync } from '../components/ui';
import { session } from '../session';

/** The administration keys of the session (pages that call this are shown only when signed in). */
export function adminKeys(): { subscription_key: string; application_key: string } {
  const keys = session.admin();
  if (!keys) throw new Error('Sign in for administration first');
  return keys;
}

/** The project of `apiKey` as the administration shows it (`projects/{api_key}/show`), loaded once per key. */
export function useProject(apiKey: string) {
  return useAsync(
    async () =>
      (
        await call(
          api.POST('/projects/{api_key}/show', {
            params: { path: { api_key: apiKey } },
            body: adminKeys(),
          }),
        )
      ).response.project,
    [apiKey],
  );
}
