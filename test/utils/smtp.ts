import { simpleParser, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

/** A real SMTP server on a free port that keeps every message it receives, parsed. */
export interface Inbox {
  readonly url: string;
  readonly messages: ParsedMail[];
  close(): Promise<void>;
}

export async function startInbox(): Promise<Inbox> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The token of a link `…#token=<token>` in a message's text. */
export function tokenIn(mail: ParsedMail): string {
  const match = /#token=([A-Za-z0-9_.%-]+)/.exec(mail.text ?? '');
  if (match === null) throw new Error(`no link with a token in: ${mail.text}`);
  return decodeURIComponent(match[1]);
}
