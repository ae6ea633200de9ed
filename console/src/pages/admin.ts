import { session } from '../session';

/** The administration keys of the session (pages that call this are shown only when signed in). */
export function adminKeys(): { subscription_key: string; application_key: string } {
  const keys = session.admin();
  if (!keys) throw new Error('Sign in for administration first');
  return keys;
}
