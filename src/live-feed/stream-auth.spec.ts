import { AppError } from '../common/app-error';
import { headerKey } from './stream-auth';

const KEY = 'ab'.repeat(32);

function refusal(run: () => unknown): [number, string] | null {
  try {
    run();
    return null;
  } catch (error) {
    return [(error as AppError).status, (error as AppError).message];
  }
}

describe('headerKey', () => {
  it('reads Authorization: Bearer and X-Api-Key, and null for neither', () => {
    expect(headerKey({ authorization: `Bearer ${KEY}` })).toBe(KEY);
    expect(headerKey({ authorization: `bearer  ${KEY} ` })).toBe(KEY);
    expect(headerKey({ 'x-api-key': KEY })).toBe(KEY);
    expect(headerKey({ cookie: 'a=b' })).toBeNull();
  });

  it('answers 400 naming the header or key: another scheme, an empty credential, both headers', () => {
    expect(refusal(() => headerKey({ authorization: `Basic ${KEY}` }))).toEqual([
      400,
      'Invalid parameter Authorization: must be "Bearer <api_key>"',
    ]);
    expect(refusal(() => headerKey({ authorization: 'Bearer ' }))).toEqual([
      400,
      'Invalid parameter Authorization: must be "Bearer <api_key>"',
    ]);
    expect(refusal(() => headerKey({ authorization: `Bearer ${KEY}`, 'x-api-key': KEY }))).toEqual([
      400,
      'Invalid parameter key: given more than once; send the api_key once: Authorization, X-Api-Key or the form body',
    ]);
  });
});
