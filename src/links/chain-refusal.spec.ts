import { QueryFailedError } from 'typeorm';
import { AppError, ErrorCode } from '../common/app-error';
import { CHAIN_CYCLE_STATE, CHAIN_DEPTH_STATE } from './chain-limits';
import { chainRefusal, refusingChains } from './chain-refusal';

function failedQuery(code: string): QueryFailedError {
  return new QueryFailedError(
    'INSERT INTO links',
    [],
    Object.assign(new Error('refused'), { code }),
  );
}

describe('chainRefusal', () => {
  it("answers the chain trigger's SQLSTATEs with a 400 naming parent", () => {
    expect(
      [CHAIN_CYCLE_STATE, CHAIN_DEPTH_STATE].map((code) => {
        const refusal = chainRefusal(failedQuery(code));
        return [refusal?.status, refusal?.code, refusal?.message];
      }),
    ).toEqual([
      [
        400,
        ErrorCode.invalidParameter,
        'Invalid parameter parent: a link cannot become its own ancestor',
      ],
      [
        400,
        ErrorCode.invalidParameter,
        'Invalid parameter parent: the parent is 255 generations below its root, the most a cascade holds',
      ],
    ]);
  });

  it('leaves any other error alone', () => {
    expect(
      [failedQuery('23505'), new Error('boom'), 'a string', null, undefined].map(chainRefusal),
    ).toEqual([null, null, null, null, null]);
  });
});

describe('refusingChains', () => {
  it("turns the trigger's refusal into its 400, and passes anything else on", async () => {
    await expect(
      refusingChains(Promise.reject(failedQuery(CHAIN_DEPTH_STATE))),
    ).rejects.toBeInstanceOf(AppError);
    const other = failedQuery('23505');
    await expect(refusingChains(Promise.reject(other))).rejects.toBe(other);
    await expect(refusingChains(Promise.resolve(7))).resolves.toBe(7);
  });
});
