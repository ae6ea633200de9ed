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
    expect(expandPattern('https://r.example/?u=%escaped_original_url%&by=%user_id_username%', values)).toBe(
      'https://r.example/?u=https%3A%2F%2Fshop.example%2Fp%3Fid%3D1%26x%3D2&by=Ann%20Lee',
    );
    expect(expandPattern('%original_url%#%svc_id%', values)).toBe('https://shop.example/p?id=1&x=2#svc.test_abc');
  });

  it('trims values to 128 characters before escaping', () => {
    expect(expandPattern('https://r.example/%notes%', values)).toBe(`https://r.example/${'n'.repeat(128)}`);
  });

  it('leaves missing values empty and other percent text alone', () => {
    expect(expandPattern('https://r.example/?t=%tag%&c=%campaign%&s=%20%&z=%unknown%', values)).toBe(
      'https://r.example/?t=&c=&s=%20%&z=%unknown%',
    );
  });

  it('validates patterns', () => {
    expect(isValidPattern('https://r.example/?u=%escaped_original_url%')).toBe(true);
    expect(isValidPattern('%original_url%?ref=svc')).toBe(true);
    expect(isValidPattern('%escaped_original_url%')).toBe(false);
    expect(isValidPattern('javascript:alert(1)')).toBe(false);
  });
});
