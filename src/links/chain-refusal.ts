import { AppError, Errors } from '../common/app-error';
import { CHAIN_CYCLE_STATE, CHAIN_DEPTH_STATE, MAX_CHAIN_DEPTH } from './chain-limits';

/**
 * The 400 naming `parent` of a statement the chain trigger refused (migration LinkChains): the
 * link would be its own ancestor, or the parent is MAX_CHAIN_DEPTH generations deep. Null for any
 * other error. TypeORM's QueryFailedError carries the driver's SQLSTATE, and its error as
 * `driverError`: both are looked at.
 */
export function chainRefusal(error: unknown): AppError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, driverError } = error as { code?: unknown; driverError?: unknown };
  if (code === CHAIN_CYCLE_STATE)
    return Errors.invalid('parent', 'a link cannot become its own ancestor');
  if (code === CHAIN_DEPTH_STATE)
    return Errors.invalid(
      'parent',
      `the parent is ${MAX_CHAIN_DEPTH} generations below its root, the most a cascade holds`,
    );
  return driverError !== undefined && driverError !== error ? chainRefusal(driverError) : null;
}

/**
 * A write that can fire the chain trigger (an INSERT into links, an UPDATE of a link's `parent`),
 * with the trigger's refusal answered as chainRefusal's 400 (docs/api.md, "Share chains"); any
 * other failure as it is.
 */
export async function refusingChains<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    throw chainRefusal(error) ?? error;
  }
}
