import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost (2^14), block size and parallelism: 16 MiB and about 50 ms of one thread per hash. */
const COST = 16384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** A password of a link: 1 to 256 characters (code points). */
export const PASSWORD_MAX = 256;

function derive(
  password: string,
  salt: Buffer,
  cost: number,
  blockSize: number,
  parallelism: number,
  length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      length,
      { N: cost, r: blockSize, p: parallelism, maxmem: 256 * cost * blockSize + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * A link password as stored: `scrypt$N$r$p$salt$hash` (base64url), a fresh 16-byte salt each time.
 * Hashed on libuv's thread pool, off the event loop.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, COST, BLOCK_SIZE, PARALLELISM, KEY_LENGTH);
  return [
    'scrypt',
    COST,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/**
 * Whether `password` is the one `stored` was made from, with the parameters the stored string
 * names (compared in constant time). A string that is no scrypt hash of this form never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [cost, blockSize, parallelism] = parts.slice(1, 4).map(Number);
  const sane =
    Number.isInteger(cost) &&
    cost >= 2 &&
    cost <= 1 << 20 &&
    (cost & (cost - 1)) === 0 &&
    Number.isInteger(blockSize) &&
    blockSize >= 1 &&
    blockSize <= 32 &&
    Number.isInteger(parallelism) &&
    parallelism >= 1 &&
    parallelism <= 16;
  if (!sane) return false;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length < 16) return false;
  const key = await derive(password, salt, cost, blockSize, parallelism, expected.length);
  return timingSafeEqual(key, expected);
}
