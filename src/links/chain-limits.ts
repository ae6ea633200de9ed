/**
 * The limits of share chains as the code reads them. The chain trigger (migration LinkChains)
 * holds the same values as literals of its own, since a shipped migration never changes:
 * chain-limits.spec.ts checks that the two agree.
 */

/**
 * The most generations a cascade holds below its root (docs/api.md, "Share chains"): a link whose
 * parent is this deep is refused (400 naming `parent`), so a chain's ancestors stay a short array.
 */
export const MAX_CHAIN_DEPTH = 255;

/** The SQLSTATE the chain trigger raises when a link would become its own ancestor. */
export const CHAIN_CYCLE_STATE = 'SVC01';
/** The SQLSTATE the chain trigger raises when a parent is MAX_CHAIN_DEPTH deep. */
export const CHAIN_DEPTH_STATE = 'SVC02';
