import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO), not the headers. */
  to: string[];
  raw: string;
  mail: ParsedMail;
  /** The name the client gave in EHLO (nodemailer's `name`, settable by `?name=` in SMTP_URL). */
  client: string;
  /** The Message-ID header. */
  messageId: string | undefined;
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that keeps and parses (mailparser) every message it
 * accepts. A recipient in `hang` gets no answer to RCPT TO, ever: a stalled mail conversation. A
 * recipient in `refuse` gets that reply code to RCPT TO (450: try later, 550: no such user). A message
 * to a recipient in `holdReply` is kept (counted as received, as a server that stored it) but the final
 * reply to its DATA never comes: the client cannot know it arrived. A message to a recipient in `slow`
 * is answered after that many milliseconds.
 */
export async function startSmtpReceiver() {
  const received: ReceivedMail[] = [];
  const hang = new Set<string>();
  const refuse = new Map<string, number>();
  const holdReply = new Set<string>();
  const slow = new Map<string, number>();
  /** Messages whose reply is held, kept until the client goes away. */
  let held = 0;
  const hanging = new Map<string, number>();
  /** Stalled sessions open now, and the most ever open at once. */
  const stalled = new Set<string>();
  let maxStalled = 0;
  const listeners = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      if (hang.has(to)) {
        hanging.set(to, (hanging.get(to) ?? 0) + 1);
        stalled.add(_session.id);
        maxStalled = Math.max(maxStalled, stalled.size);
        listeners.forEach((l) => l());
        return; // never answered
      }
      const code = refuse.get(to);
      if (code) return callback(Object.assign(new Error(code >= 500 ? 'No such user here' : 'Mailbox busy, try again later'), { responseCode: code }));
      callback();
    },
    onClose(session) {
      stalled.delete(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (mail) => {
            const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
            received.push({ to, raw, mail, client: String(session.hostNameAppearsAs), messageId: mail.messageId });
            if (to.some((a) => holdReply.has(a))) held++;
            listeners.forEach((l) => l());
            if (to.some((a) => holdReply.has(a))) return; // stored, never acknowledged
            const delay = Math.max(0, ...to.map((a) => slow.get(a) ?? 0));
            if (delay) setTimeout(() => callback(), delay);
            else callback();
          },
          (err) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    hang,
    refuse,
    holdReply,
    slow,
    /** Messages stored whose final reply was held. */
    held: () => held,
    /** Conversations stalled at RCPT TO so far, per address. */
    hanging,
    /** The most conversations stalled at once. */
    maxStalled: () => maxStalled,
    /** Mails received for `address`. */
    to: (address: string) => received.filter((r) => r.to.includes(address.toLowerCase())),
    /** Resolves when `predicate` holds (checked at each message and each stalled recipient), rejects after `ms`. */
    waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate()) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error('the expected mail did not arrive'));
        }, ms);
        listeners.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
