import { Global, Inject, Injectable, Logger, Module, OnModuleDestroy } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

type Nodemailer = typeof import('nodemailer');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use only, see the constructor
const loadNodemailer = (): Nodemailer => require('nodemailer') as Nodemailer;

/**
 * E-mail through nodemailer when SMTP_URL is set (invitations, password resets). Nothing of a
 * message reaches the log — its links carry one-time tokens — only that a send failed and why.
 */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly logger = new Logger(Mailer.name);
  private readonly transport?: Transporter;
  readonly publicUrl: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // Loaded only when mail goes out: the embedded default's footprint has no room for an unused library.
    this.transport = config.mail.smtpUrl === undefined ? undefined : loadNodemailer().createTransport(config.mail.smtpUrl);
    this.publicUrl = config.mail.publicUrl;
  }

  /** Whether mail goes out (SMTP_URL is set). */
  get enabled(): boolean {
    return this.transport !== undefined;
  }

  /** A link under PUBLIC_URL with the token in the fragment, which browsers never send to a server. */
  link(path: string, token: string): string {
    return `${this.publicUrl}${path}#token=${encodeURIComponent(token)}`;
  }

  async send(mail: Mail): Promise<void> {
    if (this.transport === undefined) throw new Error('SMTP_URL is not set');
    await this.transport.sendMail({ from: this.config.mail.from, ...mail });
  }

  /** Sends without the caller waiting: a failure is logged (without the message). */
  sendLater(mail: Mail, what: string): void {
    setImmediate(() => void this.send(mail).catch((err: Error) => this.logger.warn(`Could not e-mail ${what}: ${err.message}`)));
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}

@Global()
@Module({ providers: [Mailer], exports: [Mailer] })
export class MailModule {}
