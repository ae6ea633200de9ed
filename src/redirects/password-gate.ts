import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { verifyPassword } from '../links/controls/link-password';
import { PASSWORD_ATTEMPTS, PasswordAttempts, clientKey } from './password-attempts';
import { PasswordChecks } from './password-checks';
import { passwordPage, writePasswordPage } from './password-form';
import { writeUnavailable } from './redirect-answers';

/** The most a password form's body may hold (a 256-character password, escaped, and a referrer). */
const BODY_LIMIT = 8192;

/** A password form posted to a protected link, as the redirect listener hands it over. */
export interface Submission {
  req: IncomingMessage;
  res: ServerResponse;
  /** The link's path, where the form posts. */
  linkPath: string;
  linkId: string;
  projectId: string;
  /** The stored scrypt hash. */
  hash: string;
  ip: string | null;
  contentType: string | undefined;
}

/**
 * What a submission came to: the right password (with the referrer the visitor first came from,
 * which its click keeps), or an answer the gate wrote itself (the form again with 401 or 429, 413,
 * 503) or could not write (the visitor left).
 */
export type SubmissionResult = { kind: 'accepted'; referrer: string | null } | { kind: 'answered' };

const ANSWERED: SubmissionResult = { kind: 'answered' };

/**
 * A protected link's form and its answers (docs/api.md, "Link controls" and "Passwords and
 * proxies"): GET and HEAD get the form; a POST reserves an attempt (past PASSWORD_ATTEMPTS wrong
 * ones in the window: the form with 429), then its password is checked against the stored hash in
 * the fair queue of PasswordChecks. The right one gives the attempt back and is `accepted`, for
 * the listener to redirect; a wrong one answers the form again (401) and keeps it.
 */
@Injectable()
export class PasswordGate {
  private readonly checks = new PasswordChecks();

  constructor(private readonly attempts: PasswordAttempts) {}

  /** The form (200); HEAD: its headers. */
  form(res: ServerResponse, linkPath: string, referrer: string | null, head: boolean): void {
    writePasswordPage(res, 200, passwordPage(linkPath, null, referrer), head);
  }

  async submit(submission: Submission): Promise<SubmissionResult> {
    const { res, linkPath } = submission;
    const form = await readForm(submission.req, submission.contentType);
    if (form === null) {
      if (res.destroyed) return ANSWERED;
      res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('Request body too large');
      return ANSWERED;
    }
    const given = form.get('referrer');
    const referrer = given ? given.slice(0, 2048) : null;
    const answer = (status: 401 | 429, message: string, retryAfter?: number) => {
      writePasswordPage(res, status, passwordPage(linkPath, message, referrer), false, retryAfter);
      return ANSWERED;
    };
    const limited = (msLeft: number) => {
      const seconds = Math.max(1, Math.ceil(msLeft / 1000));
      return answer(
        429,
        `Too many wrong passwords. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
        seconds,
      );
    };
    const client = clientKey(submission.ip);
    const key = this.attempts.key(submission.linkId, client);
    const password = form.get('password');
    if (!password) {
      const window = await this.attempts.state(key);
      if (window.failures >= PASSWORD_ATTEMPTS) return limited(window.msLeft);
      return answer(401, 'Enter the password.');
    }
    const reserved = await this.attempts.reserve(key);
    if (!reserved.granted) return limited(reserved.msLeft);
    const admission = this.checks.submit(
      client,
      submission.projectId,
      () => verifyPassword(password, submission.hash),
      () => !res.destroyed,
    );
    switch (admission.kind) {
      case 'address-busy':
        await this.attempts.release(key);
        return answer(429, 'Too many passwords at once from your address. Try again.', 1);
      case 'project-busy':
        await this.attempts.release(key);
        writeUnavailable(res);
        return ANSWERED;
      case 'queued':
        break;
    }
    let outcome: Awaited<typeof admission.done>;
    try {
      outcome = await admission.done;
    } catch (error) {
      await this.attempts.release(key);
      throw error;
    }
    if (outcome.kind === 'gone' || outcome.right) await this.attempts.release(key);
    if (outcome.kind === 'gone') return ANSWERED;
    if (outcome.right) return { kind: 'accepted', referrer };
    return answer(401, 'Wrong password. Please try again.');
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
