/**
 * The client address (rate limits, sessions, audit trail) comes from X-Forwarded-For only when
 * the request arrives through a proxy named by SVC_TRUST_PROXY.
 */
import { startHerald } from '../support/harness.js';


it('believes X-Forwarded-For from a loopback proxy by default', async () => {
  // setupAdmin sends no X-Forwarded-For; the harness calls from loopback, so the address is loopback.
  const h = await startHerald();
  try {
    const res = await h.http.post('/api/v1/setup').set('X-Forwarded-For', '198.51.100.7')
      .send({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' });
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
    const sessions = await h.http.get('/api/v1/me/sessions').set('Cookie', cookie);
    expect(sessions.body.items[0].ip).toBe('198.51.100.7');
  } finally {
    await h.stop();
  }
});

it('ignores X-Forwarded-For when SVC_TRUST_PROXY is none', async () => {
  const h = await startHerald({ env: { SVC_TRUST_PROXY: 'none' } });
  try {
    const res = await h.http.post('/api/v1/setup').set('X-Forwarded-For', '198.51.100.7')
      .send({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' });
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
    const sessions = await h.http.get('/api/v1/me/sessions').set('Cookie', cookie);
    expect(sessions.body.items[0].ip).not.toBe('198.51.100.7');
    expect(sessions.body.items[0].ip).toMatch(/127\.0\.0\.1|::1/);
  } finally {
    await h.stop();
  }
});
