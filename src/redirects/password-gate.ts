import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { verifyPassword } from '../links/link-password';
import { PASSWORD_ATTEMPTS, PasswordAttempts } from './password-attempts';
import { passwordPage, writePasswordPage } from './password-form';

/** The most a password form's body may hold (a 256-character password, escaped, and a referrer). */
const BODY_LIMIT = 8192;
/** Password checks (scrypt, on the thread pool) running at once; more are answered 503. */
const MAX_CHECKING = 32;

/** A protected link's visit, as the redirect listener hands it over. */
export interface GateVisit {
  req: IncomingMessage;
  res: ServerResponse;
  /** The link's address as requested (its path), where the form posts. */
  action: string;
  linkId: string;
  /** The stored scrypt hash. */
  hash: string;
  ip: string | null;
  contentType: string | undefined;
}

/**
 * A protected link's form and its answers (docs/api.md, "Link controls"): GET and HEAD get the
 * form; a POST's password is checked against the stored hash, the right one hands the visit back
 * (`accepted`, with the referrer the visitor first came from), a wrong one answers the form again
 * (401), and past PASSWORD_ATTEMPTS wrong ones in the window the form with 429.
 */
@Injectable()
export class PasswordGate {
  private checking = 0;

  constructor(private readonly attempts: PasswordAttempts) {}

  /** The form (200); HEAD: its headers. */
  form(res: ServerResponse, action: string, referrer: string | null, head: boolean): void {
    writePasswordPage(res, 200, passwordPage(action, null, referrer), head);
  }

  async submit(visit: GateVisit, accepted: (referrer: string | null) => void): Promise<void> {
    const { res, action } = visit;
    const form = await readForm(visit.req, visit.contentType);
    if (form === null) {
      if (res.destroyed) return;
      res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('Request body too large');
      return;
    }
    const given = form.get('referrer');
    const referrer = given ? given.slice(0, 2048) : null;
    const answer = (status: 401 | 429, message: string, retryAfter?: number) =>
      writePasswordPage(res, status, passwordPage(action, message, referrer), false, retryAfter);
    const key = this.attempts.key(visit.linkId, visit.ip);
    const before = await this.attempts.state(key);
    if (before.failures >= PASSWORD_ATTEMPTS) {
      const seconds = Math.max(1, Math.ceil(before.msLeft / 1000));
      return answer(
        429,
        `Too many wrong passwords. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
        seconds,
      );
    }
    const password = form.get('password');
    if (!password) return answer(401, 'Enter the password.');
    if (this.checking >= MAX_CHECKING) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '1' });
      res.end('Temporarily unavailable, please retry');
      return;
    }
    this.checking += 1;
    let right: boolean;
    try {
      right = await verifyPassword(password, visit.hash);
    } finally {
      this.checking -= 1;
    }
    if (right) return accepted(referrer);
    await this.attempts.fail(key);
    answer(401, 'Wrong password. Please try again.');
  }
}

/**
 * A form body (application/x-www-form-urlencoded; another type reads as an empty form), or null
 * when it is larger than BODY_LIMIT or the request is cut.
 */
function readForm(
  req: IncomingMessage,
  contentType: string | undefined,
): Promise<URLSearchParams | null> {
  const form = (contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        if (!over) resolve(null);
        over = true;
      } else if (form) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      if (!over) resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', () => resolve(null));
    req.on('aborted', () => resolve(null));
  });
}
