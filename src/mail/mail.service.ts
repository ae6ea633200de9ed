import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Injectable, Logger } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { AppConfig } from '../config/app-config';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';

export interface MailMessage {
  /** Stable id: the outbox file name and the job id, so a retried job writes one message. */
  id: string;
  to: string;
  subject: string;
  text: string;
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
    const file = path.join(this.config.outboxDir, `${message.id}.eml`);
    const eml = [
      `Message-ID: <${message.id}@svc>`,
      `From: ${this.config.mailFrom}`,
      `To: ${message.to}`,
      `Subject: ${message.subject}`,
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
