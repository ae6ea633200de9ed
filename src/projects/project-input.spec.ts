import { errorOf } from '../../test/support/app-errors';
import { normaliseLinkHost, parseProjectCreation, parseProjectUpdate } from './project-input';

describe('parseProjectCreation', () => {
  it('reads every field, taking a single string as a list of one', () => {
    expect(
      parseProjectCreation({
        name: 'acme_1-x',
        domains: ['Go.Acme.com', 'acme.com_Blog'],
        default_domain: 'GO.acme.com',
        admins: ['ann@example.com'],
        sharers: 'bob',
        conversions: {
          enabled: 'true',
          domains: 'Shop.acme.com',
          goal_1_label: 'Signup',
          goal_2_label: null,
        },
      }),
    ).toEqual({
      name: 'acme_1-x',
      settings: { redirectionPatterns: {} },
      domains: [
        { value: 'go.acme.com', parameter: 'json.domains[0]' },
        { value: 'acme.com_Blog', parameter: 'json.domains[1]' },
      ],
      defaultDomain: { value: 'go.acme.com', parameter: 'json.default_domain' },
      members: [
        { value: 'ann@example.com', parameter: 'json.admins[0]', role: 'admin' },
        { value: 'bob', parameter: 'json.sharers', role: 'sharer' },
      ],
      conversions: {
        enabled: true,
        domains: ['shop.acme.com'],
        removeDomains: [],
        goalLabels: { goal_1: 'Signup', goal_2: null },
      },
      visitorStorage: {},
      retention: {},
    });
  });

  it("takes 'all' anywhere in conversions.domains as every redirection", () => {
    expect(
      parseProjectCreation({ name: 'a', conversions: { domains: ['x.com', 'ALL'] } }).conversions
        ?.domains,
    ).toBe('all');
  });

  it('names the field in every refusal', () => {
    expect(errorOf(() => parseProjectCreation({}))).toEqual({
      status: 400,
      code: 1001,
      message: 'Missing required parameter: json.name',
    });
    expect(errorOf(() => parseProjectCreation({ name: 'a.b' })).message).toBe(
      'Invalid parameter json.name: "a.b" may contain only a-z, A-Z, 0-9, underscore and hyphen',
    );
    expect(errorOf(() => parseProjectCreation({ name: 'a'.repeat(101) })).message).toBe(
      'Invalid parameter json.name: must be at most 100 characters',
    );
    expect(errorOf(() => parseProjectCreation({ name: 'a', default_domain: 3 })).message).toBe(
      'Invalid parameter json.default_domain: must be a hostname string',
    );
    expect(
      errorOf(() => parseProjectCreation({ name: 'a', conversions: { domains: 'x.com:8080' } }))
        .message,
    ).toBe('Invalid parameter json.conversions.domains: "x.com:8080" is not a hostname');
    expect(
      errorOf(() => parseProjectCreation({ name: 'a', conversions: { goal_2_label: 5 } })).message,
    ).toBe('Invalid parameter json.conversions.goal_2_label: must be a string or null');
  });
});

describe('parseProjectUpdate', () => {
  it('reads removals and role changes; an empty object changes nothing', () => {
    expect(parseProjectUpdate({})).toEqual({
      name: null,
      settings: { redirectionPatterns: {} },
      domains: [],
      removeDomains: [],
      defaultDomain: null,
      members: [],
      removeUsers: [],
      changeRoles: [],
      conversions: null,
      rotatePublishableKey: false,
      visitorStorage: {},
      retention: {},
    });
    const input = parseProjectUpdate({
      remove_domain: 'go.acme.com',
      remove_user: ['bob'],
      change_role: { user: 'ann', role: 'viewer' },
      conversions: { remove_domain: ['a.com'] },
    });
    expect(input.removeDomains).toEqual([
      { value: 'go.acme.com', parameter: 'json.remove_domain' },
    ]);
    expect(input.removeUsers).toEqual([{ value: 'bob', parameter: 'json.remove_user[0]' }]);
    expect(input.changeRoles).toEqual([
      { value: 'ann', parameter: 'json.change_role.user', role: 'viewer' },
    ]);
    expect(input.conversions?.removeDomains).toEqual([
      { value: 'a.com', parameter: 'json.conversions.remove_domain[0]' },
    ]);
  });

  it('refuses malformed change_role entries', () => {
    expect(errorOf(() => parseProjectUpdate({ change_role: ['ann'] })).message).toBe(
      'Invalid parameter json.change_role[0]: must be an object {user, role}',
    );
    expect(errorOf(() => parseProjectUpdate({ change_role: [{ role: 'admin' }] })).message).toBe(
      'Invalid parameter json.change_role[0].user: must be an e-mail address, sharer_id or username',
    );
  });

  it('takes rotate_publishable_key as a JSON boolean only', () => {
    expect(parseProjectUpdate({ rotate_publishable_key: true }).rotatePublishableKey).toBe(true);
    expect(parseProjectUpdate({ rotate_publishable_key: false }).rotatePublishableKey).toBe(false);
    for (const value of ['true', 1, null, [true], {}]) {
      expect(errorOf(() => parseProjectUpdate({ rotate_publishable_key: value }))).toStrictEqual({
        status: 400,
        code: 1002,
        message:
          'Invalid parameter json.rotate_publishable_key: must be true or false (a JSON boolean)',
      });
    }
  });
});

describe('normaliseLinkHost', () => {
  it('lowercases the hostname and keeps the segment as written', () => {
    expect(normaliseLinkHost('Go.Acme.COM_Blog')).toBe('go.acme.com_Blog');
    expect(normaliseLinkHost('Go.Acme.COM')).toBe('go.acme.com');
  });
});
