// E-mail delivery through the outbox runner (docs/outbox.md) under abuse: two worker processes at once, a
// worker killed half-way, one organisation's burst, hostile SMTP peers. Mail goes to a real SMTP server.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createLead, quoteRequest, roles } from '../support/leads';
import { startChild, stopChildren, type ChildService } from '../support/service';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import type { Config } from '../../src/config';
import type { ReceivedMail } from './smtp-receiver';
import { clock, em, header, now, NOTIFICATION_ENV, setNow, smtp, t, useNotificationFixture, worker } from './notification-fixture';

jest.setTimeout(240_000);

useNotificationFixture({}, stopChildren);

const db = () => em().getConnection();
/** Each mail as (event, recipient), the key "never twice" is about. */
const eventRecipient = (m: ReceivedMail) => `${header(m, 'x-leadnet-event-id')} ${m.to.join(',')}`;

async function until(predicate: () => Promise<boolean> | boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A notification worker in its own OS process, polling every 20 ms, without the leader lock; `name` is its EHLO name. */
async function workerProcess(name: string, env: Record<string, string> = {}): Promise<ChildService> {
  const child = startChild(
    {
      DATABASE_URL: t.config.databaseUrl!,
      SMTP_URL: `${smtp.url}/?name=${name}`,
      ...NOTIFICATION_ENV,
      LOG_LEVEL: 'warn',
      ...env,
    },
    [process.execPath, '--import', 'tsx', 'test/notifications/worker-process.ts'],
  );
  await child.waitFor(/notification worker started/);
  return child;
}

async function stop(child: ChildService): Promise<void> {
  child.child.kill('SIGTERM');
  await child.exited;
}

/** The deliveries of `users`' mails by status. */
async function statuses(userIds: string[]): Promise<Record<string, number>> {
  const rows = await db().execute(`select status, count(*)::int as n from notification_deliveries where user_id = any(?::uuid[]) group by status`, [`{${userIds.join(',')}}`]);
  return Object.fromEntries(rows.map((r: any) => [r.status, r.n]));
}

describe('two worker processes at once', () => {
  test('deliver one burst to a real SMTP server: every (event, recipient) mail arrives exactly once, and both processes sent some', async () => {
    const a = await roles(em());
    const b = await roles(em());
    const recipients = [a, b].flatMap((o) => [o.users.locationUser, o.users.storeManager]);
    // Slow answers keep each process's lanes full, so the other one claims the rest.
    for (const r of recipients) smtp.slow.set(r.user.email.toLowerCase(), 150);
    const [one, two] = [await workerProcess('worker-a'), await workerProcess('worker-b')];
    try {
      for (let i = 0; i < 8; i++) {
        await createLead(t, a.users.companyAdmin.key, quoteRequest({ assignee_id: a.net.storeNorth.id }));
        await createLead(t, b.users.companyAdmin.key, quoteRequest({ assignee_id: b.net.storeNorth.id }));
      }
      const ids = recipients.map((r) => r.user.id);
      await until(async () => (await statuses(ids)).sent === 32, 'the 32 mails recorded as sent');
      // Anything sent twice would arrive within its SMTP round trip: give it time to show.
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await Promise.all([stop(one), stop(two)]);
      smtp.slow.clear();
    }
    const mails = smtp.received.filter((m) => recipients.some((r) => m.to.includes(r.user.email.toLowerCase())));
    expect(mails).toHaveLength(32);
    expect(new Set(mails.map(eventRecipient)).size).toBe(32);
    expect(new Set(mails.map((m) => m.messageId)).size).toBe(32);
    expect(new Set(mails.map((m) => m.client))).toEqual(new Set(['worker-a', 'worker-b']));
  });
});

describe('a worker killed half-way', () => {
  test('after a restart nothing is lost; only the mail the server stored but had not acknowledged is sent twice, with the same Message-ID', async () => {
    const { net: n, users } = await roles(em());
    const stored = users.locationUser.user.email.toLowerCase();
    const stalled = users.storeManager.user.email.toLowerCase();
    const ids = [users.locationUser.user.id, users.storeManager.user.id];
    // A long SMTP timeout: the killed process's conversations are still open when it dies.
    const child = await workerProcess('worker-killed', { SMTP_TIMEOUT_MS: '60000' });
    for (let i = 0; i < 3; i++) await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: n.storeNorth.id }));
    await until(async () => (await statuses(ids)).sent === 6, 'three leads mailed to both and recorded');

    // The fourth lead: one mail stored by the server whose reply never comes, one stalled at RCPT TO.
    smtp.holdReply.add(stored);
    smtp.hang.add(stalled);
    const last = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: n.storeNorth.id }));
    await until(() => smtp.held() >= 1 && (smtp.hanging.get(stalled) ?? 0) >= 1, 'both mails of the fourth lead in flight');
    child.child.kill('SIGKILL');
    await child.exited;
    smtp.holdReply.clear();
    smtp.hang.clear();

    // Both are leased by the dead process: a restarted worker leaves them alone until the lease ends.
    await worker.drain();
    const leased = await db().execute(
      `select status, attempts, next_attempt_at > now() + interval '3 minutes' as leased from notification_deliveries where lead_id = ?`,
      [last.id],
    );
    expect(leased).toEqual([
      { status: 'pending', attempts: 0, leased: true },
      { status: 'pending', attempts: 0, leased: true },
    ]);
    expect(smtp.to(stalled).filter((m) => m.mail.text?.includes(last.id))).toHaveLength(0);

    // The lease ends (three SMTP timeouts and a minute): each is sent once more, then never again.
    setNow(new Date(Date.now() + 5 * 60_000));
    await worker.drain();
    await worker.drain();
    expect(await statuses(ids)).toEqual({ sent: 8 });
    const byKey = new Map<string, ReceivedMail[]>();
    for (const m of smtp.received.filter((x) => x.to.includes(stored) || x.to.includes(stalled))) byKey.set(eventRecipient(m), [...(byKey.get(eventRecipient(m)) ?? []), m]);
    const counts = [...byKey.values()].map((ms) => ms.length).sort();
    expect(counts).toEqual([1, 1, 1, 1, 1, 1, 1, 2]);
    const twice = [...byKey.values()].find((ms) => ms.length === 2)!;
    expect(twice[0].to).toEqual([stored]);
    expect(twice[0].messageId).toBe(twice[1].messageId);
    expect(header(twice[0], 'x-leadnet-notification-id')).toBe(header(twice[1], 'x-leadnet-notification-id'));
    expect(twice[0].messageId).toBe(`<notification-${header(twice[0], 'x-leadnet-notification-id')}@leadnet.example>`);
  });
});

describe('fairness', () => {
  test("one organisation's burst does not delay another's mail", async () => {
    const a = await roles(em());
    const b = await roles(em());
    const burst = [a.users.locationUser, a.users.storeManager].map((u) => u.user.email.toLowerCase());
    // 32 mails answered after 400 ms each, 2 at a time: at least 6 s of A's mail.
    for (const address of burst) smtp.slow.set(address, 400);
    const aMails = () => smtp.received.filter((m) => burst.some((x) => m.to.includes(x))).length;
    try {
      for (let i = 0; i < 16; i++) await createLead(t, a.users.companyAdmin.key, quoteRequest({ assignee_id: a.net.storeNorth.id }));
      worker.start();
      await smtp.waitFor(() => aMails() >= 2);
      await createLead(t, b.users.companyAdmin.key, quoteRequest({ assignee_id: b.net.storeNorth.id }));
      await smtp.waitFor(() => smtp.to(b.users.locationUser.user.email).length === 1 && smtp.to(b.users.storeManager.user.email).length === 1);
      // B's mails came while A's burst was still going.
      expect(aMails()).toBeLessThan(32);
    } finally {
      await worker.stop();
      smtp.slow.clear();
    }
    await worker.drain();
    expect(aMails()).toBe(32);
  });
});

describe('hostile SMTP peers', () => {
  test('a 4xx refusal is retried with backoff until it is accepted, a 5xx is final at once, and neither holds another organisation back', async () => {
    const a = await roles(em());
    const b = await roles(em());
    const busy = a.users.locationUser.user.email.toLowerCase();
    const unknown = a.users.storeManager.user.email.toLowerCase();
    smtp.refuse.set(busy, 450);
    smtp.refuse.set(unknown, 550);
    try {
      await createLead(t, a.users.companyAdmin.key, quoteRequest({ assignee_id: a.net.storeNorth.id }));
      await createLead(t, b.users.companyAdmin.key, quoteRequest({ assignee_id: b.net.storeNorth.id }));
      await worker.drain();
      expect(smtp.to(b.users.locationUser.user.email)).toHaveLength(1);
      expect(smtp.to(b.users.storeManager.user.email)).toHaveLength(1);
      const [retried] = await db().execute(
        `select status, attempts, last_error, extract(epoch from next_attempt_at - ?::timestamptz) as wait from notification_deliveries where user_id = ?`,
        [now, a.users.locationUser.user.id],
      );
      expect([retried.status, retried.attempts]).toEqual(['pending', 1]);
      expect(retried.last_error).toMatch(/450/);
      // The first retry waits 30 s, plus up to 20% jitter.
      expect(Number(retried.wait)).toBeGreaterThanOrEqual(30);
      expect(Number(retried.wait)).toBeLessThanOrEqual(36);
      const [refused] = await db().execute(`select status, attempts, last_error, next_attempt_at from notification_deliveries where user_id = ?`, [a.users.storeManager.user.id]);
      expect([refused.status, refused.attempts, refused.next_attempt_at]).toEqual(['failed', 1, null]);
      expect(refused.last_error).toMatch(/550/);
    } finally {
      smtp.refuse.clear();
    }
    // Not due yet: nothing happens. Once due, the mailbox accepts: one mail; the refused one never comes.
    await worker.drain();
    expect(smtp.to(busy)).toHaveLength(0);
    setNow(new Date(now.getTime() + 60_000));
    await worker.drain();
    await worker.drain();
    expect(smtp.to(busy)).toHaveLength(1);
    expect(smtp.to(unknown)).toHaveLength(0);
    expect(await statuses([a.users.locationUser.user.id])).toEqual({ sent: 1 });
  });

  test('a 4xx that never ends is given up NOTIFICATION_RETRY_HOURS after the mail was queued', async () => {
    const { net: n, users } = await roles(em());
    const busy = users.locationUser.user.email.toLowerCase();
    smtp.refuse.set(busy, 451);
    try {
      await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: n.storeNorth.id }));
      await worker.drain();
      setNow(new Date(now.getTime() + 3_600_000));
      await worker.drain();
      expect(await statuses([users.locationUser.user.id])).toEqual({ pending: 1 });
      setNow(new Date(now.getTime() + t.config.notifications.retryHours * 3_600_000));
      await worker.drain();
      const [d] = await db().execute(`select status, attempts, next_attempt_at from notification_deliveries where user_id = ?`, [users.locationUser.user.id]);
      expect([d.status, d.next_attempt_at]).toEqual(['failed', null]);
      expect(d.attempts).toBe(3);
      setNow(new Date(now.getTime() + 48 * 3_600_000));
      await worker.drain();
      expect(await statuses([users.locationUser.user.id])).toEqual({ failed: 1 });
    } finally {
      smtp.refuse.clear();
    }
    expect(smtp.to(busy)).toHaveLength(0);
  });

  test('a peer that accepts the connection and never answers: each conversation ends at SMTP_TIMEOUT_MS, every lane is tried, all are retried', async () => {
    const sockets = new Set<net.Socket>();
    let open = 0;
    let maxOpen = 0;
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      maxOpen = Math.max(maxOpen, ++open);
      socket.on('close', () => {
        open--;
        sockets.delete(socket);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const config: Config = {
      ...t.config,
      notifications: { ...t.config.notifications, smtpUrl: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, smtpTimeoutMs: 500 },
    };
    const mute = new NotificationWorker(t.orm, config, { clock });
    try {
      const orgs = [await roles(em()), await roles(em()), await roles(em())];
      for (const o of orgs) for (let i = 0; i < 3; i++) await createLead(t, o.users.companyAdmin.key, quoteRequest({ assignee_id: o.net.storeNorth.id }));
      const ids = orgs.flatMap((o) => [o.users.locationUser.user.id, o.users.storeManager.user.id]);
      const started = Date.now();
      const round = await mute.tick();
      // One round: 2 conversations per organisation at once, every organisation's, all ending by their timeout.
      expect(round.sent).toBe(6);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(maxOpen).toBe(6);
      const tried = await db().execute(
        `select d.lane, count(*)::int as n from notification_deliveries d where d.user_id = any(?::uuid[]) and d.attempts = 1 and d.status = 'pending' group by d.lane`,
        [`{${ids.join(',')}}`],
      );
      expect(tried.map((r: any) => r.n)).toEqual([2, 2, 2]);
      const [err] = await db().execute(`select last_error from notification_deliveries where user_id = any(?::uuid[]) and attempts = 1 limit 1`, [`{${ids.join(',')}}`]);
      expect(err.last_error).toMatch(/greeting|timeout|ETIMEDOUT/i);
      // Past the retry period every one of them is given up, none left hanging.
      setNow(new Date(now.getTime() + (t.config.notifications.retryHours + 1) * 3_600_000));
      await mute.drain();
      expect(await statuses(ids)).toEqual({ failed: 18 });
    } finally {
      await mute.stop();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
