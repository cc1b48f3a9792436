/**
 * An API keeps an idle keep-alive connection for longer than its clients keep theirs: Node's
 * global agent drops an idle socket after 5 s and undici after 4 s. With the server also at 5 s,
 * a client could send its next request on a socket the server was closing at that moment, and
 * get ECONNRESET (CI saw it once, in pgbouncer.test.ts's setup requests). The client now always
 * lets go first; and a proxy in front (AWS's load balancers idle out at 60 s) does too.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, waitUntilLive } from '../support/child-process.js';

let iso: Isolated;
beforeAll(async () => { iso = await isolate(); });
afterAll(async () => {
  await killChildren();
  await iso.release();
});

/** Sends one request on `socket` and resolves with the status line of its answer. */
function ask(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) { done(); resolve(text.split('\r\n')[0]!); }
    };
    const onClose = () => { done(); reject(new Error(`the connection closed (${text === '' ? 'nothing answered' : 'mid-answer'})`)); };
    const done = () => { socket.off('data', onData); socket.off('close', onClose); };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  });
}

it('answers a second request on a connection left idle for 6 s (longer than Node\'s and undici\'s clients keep one)', async () => {
  const [port] = await freePorts(1);
  const h = herald(['serve'], { ...iso.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_ROLES: 'api' });
  await waitUntilLive(h, port!);
  const socket = net.connect(port!, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  try {
    expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
    await sleep(6_000);
    expect(socket.destroyed).toBe(false);
    expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
  } finally {
    socket.destroy();
  }
}, 60_000);
