/**
 * Tiny stand-ins for database servers on loopback, for what a real local server cannot show:
 * a port that accepts and never answers, one that accepts and closes at once, a PostgreSQL that refuses a password (the local one
 * trusts everybody), a MySQL server that asks the client for a local file.
 */
import net from 'node:net';

export interface FakeServer {
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

async function listen(onConnection: (socket: net.Socket) => void): Promise<FakeServer> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() { return accepted; },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** A loopback port nobody listens on (connecting is refused). */
export async function closedPort(): Promise<number> {
  const server = await listen(() => undefined);
  await server.close();
  return server.port;
}

/** Accepts connections and never sends a byte. */
export function silentServer(): Promise<FakeServer> {
  return listen(() => undefined);
}

/** Accepts each connection and closes it at once, before a byte of any handshake. */
export function closingServer(): Promise<FakeServer> {
  return listen((socket) => { socket.destroy(); });
}

/** A PostgreSQL server that asks for a cleartext password and refuses it with SQLSTATE 28P01. */
export function pgRefusingPassword(): Promise<FakeServer & { passwords: string[] }> {
  const passwords: string[] = [];
  return listen((socket) => {
    let buf = Buffer.alloc(0);
    let stage = 0;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 0 && buf.length >= 4 && buf.length >= buf.readInt32BE(0)) {
        buf = buf.subarray(buf.readInt32BE(0));
        stage = 1;
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])); // AuthenticationCleartextPassword
      }
      if (stage === 1 && buf.length >= 5 && buf.length >= 1 + buf.readInt32BE(1)) {
        passwords.push(buf.toString('utf8', 5, buf.readInt32BE(1)).replace(/\0$/, ''));
        stage = 2;
        const body = Buffer.from('SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user "reader"\0\0');
        const head = Buffer.alloc(5);
        head[0] = 0x45; // ErrorResponse
        head.writeInt32BE(4 + body.length, 1);
        socket.end(Buffer.concat([head, body]));
      }
    });
  }).then((server) => Object.assign(server, { passwords }));
}

function packet(seq: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, payload]);
}

export interface InfileProbe extends FakeServer {
  /** Capability flags the client announced in its handshake response. */
  clientFlags: number[];
  /** Every byte the client sent after the server asked for the file. */
  afterRequest: Buffer[];
}

/** A MySQL server that answers any query with a LOCAL INFILE request for `path`. */
export function mysqlAskingForFile(path: string): Promise<InfileProbe> {
  const clientFlags: number[] = [];
  const afterRequest: Buffer[] = [];
  const LOCAL_FILES = 0x80;
  const caps = 0x1 | 0x2 | 0x4 | 0x8 | LOCAL_FILES | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;
  return listen((socket) => {
    let stage = 0;
    let buf = Buffer.alloc(0);
    const hello = Buffer.concat([
      Buffer.from([0x0a]), Buffer.from('5.7.99-fake\0'), Buffer.from([1, 0, 0, 0]),
      Buffer.from('abcdefgh'), Buffer.from([0]), Buffer.from([caps & 0xff, (caps >> 8) & 0xff]),
      Buffer.from([0x21, 0x02, 0x00]), Buffer.from([(caps >> 16) & 0xff, (caps >> 24) & 0xff]),
      Buffer.from([21]), Buffer.alloc(10), Buffer.from('ijklmnopqrst\0'), Buffer.from('mysql_native_password\0'),
    ]);
    socket.write(packet(0, hello));
    const ok = (seq: number) => packet(seq, Buffer.from([0, 0, 0, 2, 0, 0, 0]));
    socket.on('data', (chunk) => {
      if (stage === 2) { afterRequest.push(chunk); buf = Buffer.concat([buf, chunk]); }
      else buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUIntLE(0, 3)) {
        const len = buf.readUIntLE(0, 3);
        const seq = buf[3]!;
        const payload = buf.subarray(4, 4 + len);
        buf = buf.subarray(4 + len);
        if (stage === 0) { // handshake response
          clientFlags.push(payload.readUInt32LE(0));
          stage = 1;
          socket.write(ok(seq + 1));
        } else if (stage === 1 && payload[0] === 0x03) { // COM_QUERY
          stage = 2;
          socket.write(packet(seq + 1, Buffer.concat([Buffer.from([0xfb]), Buffer.from(path)])));
        } else if (stage === 2 && len === 0) { // the end of the "file"
          stage = 3;
          socket.write(ok(seq + 1));
        }
      }
    });
  }).then((server) => Object.assign(server, { clientFlags, afterRequest }));
}
