import { Admin1763884800000 } from './1763884800000-admin';

/** Every migration, in order. New migrations are appended here. */
export const MIGRATIONS = [Admin1763884800000];
