import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Injectable, Logger } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { AppConfig } from '../config/app-config';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';

export interface MailMessage {
  /**
   * Stable id made of ids only (MAIL_ID: letters, digits and hyphens), never of an e-mail
   * address: the outbox file name and the job id, so a retried job writes one message.
   */
  id: string;
  to: string;
  subject: string;
  text: string;
}

/** docs/operations.md, "Mail": a message id is a file name of its own, with no path in it. */
const MAIL_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,199}$/;

/**
 * The outbox file of a message: `<id>.eml` directly inside the outbox folder. Throws when the id
 * is not a MAIL_ID or the resolved path would leave the folder (docs/operations.md, "Mail").
 */
export function outboxFile(outboxDir: string, id: string): string {
  if (!MAIL_ID.test(id)) throw new Error(`mail id ${JSON.stringify(id)} is not made of ids`);
  const folder = path.resolve(outboxDir);
  const file = path.resolve(folder, `${id}.eml`);
  if (path.relative(folder, file) !== path.basename(file)) {
    throw new Error(`mail id ${JSON.stringify(id)} leaves the outbox`);
  }
  return file;
}

/** A header's value on one line: a line break would start a header of its own. */
function headerValue(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/**
 * Outgoing mail goes through the `mail` queue. Delivery uses SMTP_URL when set; otherwise each
 * message is written to DATA_DIR/outbox as a .eml file and logged, never dropped.
 */
@Injectable()
export class MailService {
  private readonly logger = new Logger('MailService');
  private transport?: Transporter;

  constructor(
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
  ) {}

  async enqueue(message: MailMessage): Promise<void> {
    // Refused before it is queued: the id is the job id too.
    outboxFile(this.config.outboxDir, message.id);
    await this.queue.add(QUEUES.mail, 'send', message, { jobId: message.id });
  }

  welcomeMessage(id: string, to: string, projectName: string, role: string): MailMessage {
    return {
      id,
      to,
      subject: `You have been added to ${projectName}`,
      text: [
        'Hello,',
        '',
        `you have been added to the project "${projectName}" as ${role}.`,
        `Links of this project are served from ${this.config.publicScheme}://${this.config.defaultDomain}/.`,
        '',
        '— svc',
      ].join('\n'),
    };
  }

  /** Called by the mail processor. */
  async deliver(message: MailMessage): Promise<void> {
    if (this.config.smtpUrl) {
      this.transport ??= createTransport(this.config.smtpUrl);
      await this.transport.sendMail({
        from: this.config.mailFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: `<${message.id}@svc>`,
      });
      this.logger.log({ to: message.to, id: message.id }, 'mail sent');
      return;
    }
    await mkdir(this.config.outboxDir, { recursive: true });
    const file = outboxFile(this.config.outboxDir, message.id);
    const eml = [
      `Message-ID: <${message.id}@svc>`,
      `From: ${this.config.mailFrom}`,
      `To: ${headerValue(message.to)}`,
      `Subject: ${headerValue(message.subject)}`,
      `Date: ${new Date().toUTCString()}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      message.text,
      '',
    ].join('\r\n');
    await writeFile(file, eml, 'utf8');
    this.logger.log({ to: message.to, file }, 'no SMTP_URL: mail written to the outbox');
  }
}
