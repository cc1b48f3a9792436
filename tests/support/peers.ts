/**
 * Real peers on loopback for channel tests: an HTTP server that records every request and answers
 * from a script (status codes in turn, then a default), an SMTP server (smtp-server) that keeps
 * each message, parsed with mailparser.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's bytes as they arrived (uploads). */
  raw: Buffer;
}

export interface HttpPeer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Answers in turn; when used up, `fallback` answers. */
  script: Array<{ status: number; headers?: Record<string, string>; body?: string }>;
  fallback: { status: number; headers?: Record<string, string>; body?: string };
  close(): Promise<void>;
}

export async function httpPeer(): Promise<HttpPeer> {
  const peer = {
    requests: [] as RecordedRequest[],
    script: [] as HttpPeer['script'],
    fallback: { status: 200, body: 'ok' } as HttpPeer['fallback'],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      peer.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw.toString('utf8'), raw });
      const answer = peer.script.shift() ?? peer.fallback;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(peer, {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  });
}

export interface SmtpPeer {
  port: number;
  messages: ParsedMail[];
  envelopes: Array<{ from: string; to: string[] }>;
  close(): Promise<void>;
}

export async function smtpPeer(options: {
  /** Answers RCPT TO for this address with the code (e.g. 550 unknown mailbox, 451 try later). */
  refuse?: (address: string) => number | undefined;
  /** Requires this login. */
  login?: { user: string; pass: string };
} = {}): Promise<SmtpPeer> {
  const messages: ParsedMail[] = [];
  const envelopes: SmtpPeer['envelopes'] = [];
  const server = new SMTPServer({
    authOptional: !options.login,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.login && auth.username === options.login.user && auth.password === options.login.pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const code = options.refuse?.(address.address);
      if (code) callback(Object.assign(new Error(code >= 500 ? 'No such mailbox' : 'Try again later'), { responseCode: code }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        messages.push(mail);
        envelopes.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address) });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, messages, envelopes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
