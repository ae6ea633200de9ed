import { errorOf } from '../../test/support/app-errors';
import { parseProjectCreation, parseProjectUpdate } from './project-input';
import {
  parseVisitorStorage,
  visitorStorage,
  visitorStorageChanges,
} from './project-visitor-storage';

describe('project visitor storage', () => {
  it('reads ip_storage and ua_storage from the project objects; absent fields change nothing', () => {
    expect(parseVisitorStorage({})).toEqual({});
    expect(parseVisitorStorage({ ip_storage: 'anonymised', ua_storage: 'parsed' })).toEqual({
      ipStorage: 'anonymised',
      uaStorage: 'parsed',
    });
    expect(parseVisitorStorage({ ip_storage: null })).toEqual({ ipStorage: null });
    expect(parseProjectCreation({ name: 'p', ip_storage: 'none' }).visitorStorage).toEqual({
      ipStorage: 'none',
    });
    expect(parseProjectUpdate({ ua_storage: 'full' }).visitorStorage).toEqual({
      uaStorage: 'full',
    });
  });

  it.each([
    [{ ip_storage: 'partial' }, 'json.ip_storage'],
    [{ ip_storage: 24 }, 'json.ip_storage'],
    [{ ip_storage: 'Full' }, 'json.ip_storage'],
    [{ ua_storage: 'none' }, 'json.ua_storage'],
    [{ ua_storage: null }, 'json.ua_storage'],
  ])('refuses %j with a 400 naming %s', (json, parameter) => {
    const update = errorOf(() => parseProjectUpdate(json));
    expect(update).toMatchObject({ status: 400, code: 1002 });
    expect(update.message).toMatch(new RegExp(`^Invalid parameter ${parameter}: must be one of`));
    expect(errorOf(() => parseProjectCreation({ name: 'p', ...json })).message).toBe(
      update.message,
    );
  });

  it('changes only the columns given; null returns ip_storage to the default', () => {
    expect(visitorStorageChanges({})).toEqual({});
    expect(visitorStorageChanges({ ipStorage: null })).toEqual({ ipStorage: null });
    expect(visitorStorageChanges({ ipStorage: 'full', uaStorage: 'parsed' })).toEqual({
      ipStorage: 'full',
      uaStorage: 'parsed',
    });
  });

  it('a project that never set ip_storage keeps each copy as before', () => {
    const unset = { ipStorage: null, uaStorage: 'full' as const };
    expect(visitorStorage(unset, 'anonymised')).toEqual({ ip: 'anonymised', userAgent: 'full' });
    expect(visitorStorage(unset, 'full')).toEqual({ ip: 'full', userAgent: 'full' });
    const set = { ipStorage: 'none' as const, uaStorage: 'parsed' as const };
    expect(visitorStorage(set, 'full')).toEqual({ ip: 'none', userAgent: 'parsed' });
  });
});
