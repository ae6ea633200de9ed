import { hashPassword, verifyPassword } from './link-password';

describe('link passwords (scrypt)', () => {
  it('stores scrypt with its parameters and a fresh salt, never the password', async () => {
    const a = await hashPassword('open sesame');
    const b = await hashPassword('open sesame');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('sesame');
  });

  it('accepts the password only, in any Unicode normal form', async () => {
    const stored = await hashPassword('caf\u00e9 ☕');
    await expect(verifyPassword('caf\u00e9 ☕', stored)).resolves.toBe(true);
    await expect(verifyPassword('cafe\u0301 ☕', stored)).resolves.toBe(true);
    await expect(verifyPassword('café', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('reads the parameters from the stored string; anything else never matches', async () => {
    const stored = await hashPassword('pw');
    const [, , , , salt, hash] = stored.split('$');
    // Another cost is another hash: the stored parameters are the ones used.
    await expect(verifyPassword('pw', `scrypt$1024$8$1$${salt}$${hash}`)).resolves.toBe(false);
    for (const bad of [
      '',
      'pw',
      `bcrypt$16384$8$1$${salt}$${hash}`,
      `scrypt$1000$8$1$${salt}$${hash}`,
      `scrypt$${2 ** 21}$8$1$${salt}$${hash}`,
      `scrypt$16384$8$1$${salt}$`,
      `scrypt$16384$8$1$${salt}`,
    ]) {
      await expect(verifyPassword('pw', bad)).resolves.toBe(false);
    }
  });
});
