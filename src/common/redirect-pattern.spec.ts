import { expandPattern, isValidPattern } from './redirect-pattern';

describe('expandPattern', () => {
  const values = {
    original_url: 'https://shop.example/p?id=1&x=2',
    user_id_username: 'Ann Lee',
    notes: 'n'.repeat(200),
    svc_id: 'svc.test_abc',
    tag: null,
  };

  it('escapes values, keeps original_url raw and escapes it whole', () => {
    expect(
      expandPattern('https://r.example/?u=%escaped_original_url%&by=%user_id_username%', values),
    ).toBe('https://r.example/?u=https%3A%2F%2Fshop.example%2Fp%3Fid%3D1%26x%3D2&by=Ann%20Lee');
    expect(expandPattern('%original_url%#%svc_id%', values)).toBe(
      'https://shop.example/p?id=1&x=2#svc.test_abc',
    );
  });

  it('trims values to 128 characters before escaping', () => {
    expect(expandPattern('https://r.example/%notes%', values)).toBe(
      `https://r.example/${'n'.repeat(128)}`,
    );
  });

  it('leaves missing values empty and other percent text alone', () => {
    expect(
      expandPattern('https://r.example/?t=%tag%&c=%campaign%&s=%20%&z=%unknown%', values),
    ).toBe('https://r.example/?t=&c=&s=%20%&z=%unknown%');
  });

  it('knows every field of the link record, service_postid_metadata as service_postid_reach and service_postid_shared_at', () => {
    const all = {
      svc_url: 'http://svc.test/abc',
      svc_id: 'svc.test_abc',
      domain: 'svc.test',
      path: 'abc',
      created_at: '2026-11-26T10:00:00Z',
      original_url: 'https://shop.example/p',
      channel: 'twitter',
      service: 'twitter',
      tool: 'bar',
      application: 'pub',
      parent: 'svc.test_xyz',
      sharer_id: '0b9e6f0e-8c1a-4c39-9a51-6b2f1c3d4e5f',
      username: 'ann',
      service_userid: 'twitter:1',
      service_postid: 'twitter:2',
      service_postid_reach: '1500',
      service_postid_shared_at: '2026-11-25T09:00:00Z',
      campaign: 'spring',
      campaign_name: 'Spring',
      campaign_description: 'Spring sale',
      user_id: '42',
      user_id_username: 'Ann',
      user_id_icon_url: 'https://i.example/a.png',
      user_id_profile_url: 'https://p.example/ann',
      tag: 'T',
      notes: 'N',
    };
    const pattern = Object.keys(all)
      .map((field) => `${field}=%${field}%`)
      .join('&');
    expect(expandPattern(`https://r.example/?${pattern}`, all)).toBe(
      `https://r.example/?${Object.entries(all)
        .map(
          ([field, value]) =>
            `${field}=${field === 'original_url' ? value : encodeURIComponent(value)}`,
        )
        .join('&')}`,
    );
    expect(expandPattern('https://r.example/?at=%created_at%', all)).toBe(
      'https://r.example/?at=2026-11-26T10%3A00%3A00Z',
    );
  });

  it('trims to 128 characters without cutting one in two', () => {
    const notes = `${'n'.repeat(127)}😀😀`;
    expect(expandPattern('https://r.example/%notes%', { notes })).toBe(
      `https://r.example/${'n'.repeat(127)}${encodeURIComponent('😀')}`,
    );
  });

  it('validates patterns', () => {
    expect(isValidPattern('https://r.example/?u=%escaped_original_url%')).toBe(true);
    expect(isValidPattern('%original_url%?ref=svc')).toBe(true);
    expect(isValidPattern('%escaped_original_url%')).toBe(false);
    expect(isValidPattern('javascript:alert(1)')).toBe(false);
  });
});
