import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import sodium from 'sodium-native';
import {
  dialerSessionKeys,
  E2eCryptoError,
  hostSessionKeys,
  keyPairFromSeed,
  newKeyPair,
  openE2eStreams,
  StreamDecryptor,
  StreamEncryptor,
  streamHeaderBytes,
  streamOverheadBytes,
  type E2eCryptoErrorKind,
} from './e2e-crypto.ts';
import { EdgeFrameReader, encodeEdgeMessage, type EdgeMessage } from './edge-frame-codec.ts';
import { buildMessage, parseMessage } from './edge-messages.ts';
import { encodeSealedDataFrame } from './sealed-data-frame.ts';

const hex = (bytes: Buffer) => bytes.toString('hex');
const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

const failsWith = (kind: E2eCryptoErrorKind) => (error: unknown) => {
  assert.ok(error instanceof E2eCryptoError, `an E2eCryptoError, not ${String(error)}`);
  assert.equal(error.kind, kind);
  return true;
};

test("crypto_kx: libsodium's own vectors (test/default/kx.exp) and the Go secretstream's, dialer = client, host = server", () => {
  const dialer = keyPairFromSeed(seed);
  assert.equal(hex(dialer.publicKey), '0e0216223f147143d32615a91189c288c1728cba3cc5f9f621b1026e03d83129');
  assert.equal(hex(dialer.secretKey), 'cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6');
  // sodium_increment of the seed: little-endian, so the first byte goes up by one.
  const hostSeed = Buffer.from(seed);
  hostSeed[0] = 1;
  const host = keyPairFromSeed(hostSeed);
  const client = dialerSessionKeys(dialer, host.publicKey);
  const server = hostSessionKeys(host, dialer.publicKey);
  assert.equal(hex(client.rx), '749519c68059bce69f7cfcc7b387a3de1a1e8237d110991323bf62870115731a');
  assert.equal(hex(client.tx), '62c8f4fa81800abd0577d99918d129b65deb789af8c8351f391feb0cbf238604');
  assert.equal(hex(server.rx), '62c8f4fa81800abd0577d99918d129b65deb789af8c8351f391feb0cbf238604');
  assert.equal(hex(server.tx), '749519c68059bce69f7cfcc7b387a3de1a1e8237d110991323bf62870115731a');

  const fresh = [newKeyPair(), newKeyPair()];
  assert.notDeepEqual(fresh[0]!.publicKey, fresh[1]!.publicKey, 'fresh pairs differ');
  assert.deepEqual(dialerSessionKeys(fresh[0]!, fresh[1]!.publicKey).tx, hostSessionKeys(fresh[1]!, fresh[0]!.publicKey).rx);
});

test("openE2eStreams seals a dialer's direction with the kx client's tx and a host's with the server's (the vectors' keys)", () => {
  const dialer = keyPairFromSeed(seed);
  const hostSeed = Buffer.from(seed);
  hostSeed[0] = 1;
  const host = keyPairFromSeed(hostSeed);
  const opensWith = (encryptor: StreamEncryptor, txHex: string) => {
    const state = Buffer.alloc(sodium.crypto_secretstream_xchacha20poly1305_STATEBYTES);
    sodium.crypto_secretstream_xchacha20poly1305_init_pull(state, encryptor.header, Buffer.from(txHex, 'hex'));
    const cipher = encryptor.encrypt(Buffer.from('role check'));
    const plain = Buffer.alloc(cipher.length - streamOverheadBytes);
    sodium.crypto_secretstream_xchacha20poly1305_pull(state, plain, Buffer.alloc(1), cipher, null);
    return plain.toString();
  };
  assert.equal(opensWith(openE2eStreams('dialer', dialer, host.publicKey).encryptor, '62c8f4fa81800abd0577d99918d129b65deb789af8c8351f391feb0cbf238604'), 'role check');
  assert.equal(opensWith(openE2eStreams('host', host, dialer.publicKey).encryptor, '749519c68059bce69f7cfcc7b387a3de1a1e8237d110991323bf62870115731a'), 'role check');
});

test('a peer public key that is not 32 bytes, or a low-order point, is refused as bad-public-key', () => {
  const own = newKeyPair();
  assert.throws(() => dialerSessionKeys(own, Buffer.alloc(31)), failsWith('bad-public-key'));
  assert.throws(() => hostSessionKeys(own, Buffer.alloc(32)), failsWith('bad-public-key'));
  assert.throws(() => keyPairFromSeed(Buffer.alloc(3)), RangeError);
});

test('secretstream both ways: the header alone first, then one message per Data body, 17 bytes over the plaintext', () => {
  const dialerKeys = newKeyPair();
  const hostKeys = newKeyPair();
  const dialer = openE2eStreams('dialer', dialerKeys, hostKeys.publicKey);
  const host = openE2eStreams('host', hostKeys, dialerKeys.publicKey);
  assert.equal(dialer.encryptor.header.length, streamHeaderBytes);
  assert.equal(host.decryptor.receive(dialer.encryptor.header), undefined, 'the header yields no data');
  assert.equal(dialer.decryptor.receive(host.encryptor.header), undefined);
  for (const size of [0, 1, 1000, 64 * 1024]) {
    const plain = Buffer.alloc(size, size & 0xff);
    const sealed = dialer.encryptor.encrypt(plain);
    assert.equal(sealed.length, size + streamOverheadBytes);
    if (size > 16) assert.equal(sealed.includes(plain.subarray(0, 16)), false, 'no plaintext in the sealed body');
    assert.deepEqual(host.decryptor.receive(sealed), plain);
    const back = host.encryptor.encrypt(plain);
    assert.deepEqual(dialer.decryptor.receive(back), plain);
  }
  // Into preallocated buffers: the same stream, no allocation by the module.
  const out = Buffer.alloc(5 + streamOverheadBytes);
  dialer.encryptor.encryptInto(Buffer.from('hello'), out);
  const opened = Buffer.alloc(5);
  host.decryptor.decryptInto(out, opened);
  assert.equal(opened.toString(), 'hello');
  assert.throws(() => dialer.encryptor.encryptInto(Buffer.from('x'), Buffer.alloc(3)), RangeError);
});

test('what libsodium itself pushes opens here, tags ignored; what is pushed here pulls in libsodium with tag 0 every time', () => {
  const key = Buffer.alloc(32, 5);
  const state = Buffer.alloc(sodium.crypto_secretstream_xchacha20poly1305_STATEBYTES);
  const header = Buffer.alloc(streamHeaderBytes);
  sodium.crypto_secretstream_xchacha20poly1305_init_push(state, header, key);
  const decryptor = new StreamDecryptor(key);
  decryptor.receive(header);
  const tags = [sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE, sodium.crypto_secretstream_xchacha20poly1305_TAG_PUSH, sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE];
  for (const [i, tag] of tags.entries()) {
    const plain = Buffer.from(`message ${i}`);
    const cipher = Buffer.alloc(plain.length + streamOverheadBytes);
    sodium.crypto_secretstream_xchacha20poly1305_push(state, cipher, plain, null, tag);
    assert.deepEqual(decryptor.receive(cipher), plain);
  }

  const encryptor = new StreamEncryptor(key);
  const pull = Buffer.alloc(sodium.crypto_secretstream_xchacha20poly1305_STATEBYTES);
  sodium.crypto_secretstream_xchacha20poly1305_init_pull(pull, encryptor.header, key);
  for (const text of ['a', 'bb', '', 'dddd']) {
    const cipher = encryptor.encrypt(Buffer.from(text));
    const plain = Buffer.alloc(cipher.length - streamOverheadBytes);
    const tag = Buffer.alloc(1, 0xff);
    sodium.crypto_secretstream_xchacha20poly1305_pull(pull, plain, tag, cipher, null);
    assert.equal(plain.toString(), text);
    assert.equal(tag[0], 0, 'always TAG_MESSAGE: never rekey, never final');
  }
});

function pair() {
  const a = newKeyPair();
  const b = newKeyPair();
  const sender = openE2eStreams('dialer', a, b.publicKey).encryptor;
  const receiver = openE2eStreams('host', b, a.publicKey).decryptor;
  return { sender, receiver };
}

test('forged, cut, reordered, replayed, foreign-key messages and a header not alone are typed errors; a failed stream stays failed', () => {
  {
    const { sender, receiver } = pair();
    receiver.receive(sender.header);
    const sealed = sender.encrypt(Buffer.from('pay me 10'));
    const forged = Buffer.from(sealed);
    forged[5]! ^= 1;
    assert.throws(() => receiver.receive(forged), failsWith('forged'));
    assert.throws(() => receiver.receive(sealed), failsWith('stream-failed'), 'even the genuine message after a failure');
  }
  {
    const { sender, receiver } = pair();
    receiver.receive(sender.header);
    const sealed = sender.encrypt(Buffer.from('abcdef'));
    assert.throws(() => receiver.receive(sealed.subarray(0, sealed.length - 1)), failsWith('forged'));
  }
  {
    const { sender, receiver } = pair();
    receiver.receive(sender.header);
    assert.throws(() => receiver.receive(Buffer.alloc(16)), failsWith('truncated'));
  }
  {
    const { sender, receiver } = pair();
    receiver.receive(sender.header);
    const first = sender.encrypt(Buffer.from('first'));
    const second = sender.encrypt(Buffer.from('second'));
    assert.throws(() => receiver.receive(second), failsWith('forged'), 'reordered');
    void first;
  }
  {
    const { sender, receiver } = pair();
    receiver.receive(sender.header);
    const first = sender.encrypt(Buffer.from('first'));
    assert.deepEqual(receiver.receive(first), Buffer.from('first'));
    assert.throws(() => receiver.receive(first), failsWith('forged'), 'replayed');
  }
  {
    const { sender } = pair();
    const { receiver: stranger } = pair();
    stranger.receive(sender.header);
    assert.throws(() => stranger.receive(sender.encrypt(Buffer.from('x'))), failsWith('forged'), 'keys of another connection');
  }
  {
    const { sender, receiver } = pair();
    const together = Buffer.concat([sender.header, sender.encrypt(Buffer.from('x'))]);
    assert.throws(() => receiver.receive(together), failsWith('bad-stream-header'));
    assert.throws(() => receiver.receive(sender.header), failsWith('stream-failed'));
  }
});

/** Reads edge frames from a socket as they arrive. */
function frames(socket: Socket): () => Promise<EdgeMessage> {
  const reader = new EdgeFrameReader();
  const queue: EdgeMessage[] = [];
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    reader.append(chunk);
    for (let m = reader.next(); m; m = reader.next()) queue.push(m as EdgeMessage);
    wake?.();
  });
  return async () => {
    const deadline = Date.now() + 5000;
    while (queue.length === 0) {
      if (Date.now() > deadline) throw new Error('no frame within 5 s');
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    return queue.shift()!;
  };
}

test('over TCP through a relay standing in for a router: the relay sees only ciphertext, and a byte it flips is caught', async () => {
  const dialerKeys = newKeyPair();
  const hostKeys = newKeyPair();
  const seenByRelay: Buffer[] = [];
  const sockets: Socket[] = [];
  // The host end: opens the dialer's stream and answers each message upper-cased.
  const host = createServer((socket) => {
    sockets.push(socket);
    const next = frames(socket);
    const streams = openE2eStreams('host', hostKeys, dialerKeys.publicKey);
    let sequence = 1;
    socket.write(encodeEdgeMessage(buildMessage.data({ sequence: sequence++, connId: 1, payload: streams.encryptor.header })));
    void (async () => {
      try {
        for (;;) {
          const plain = streams.decryptor.receive(parseMessage.data(await next()).payload);
          if (plain) socket.write(encodeEdgeMessage(buildMessage.data({ sequence: sequence++, connId: 1, payload: streams.encryptor.encrypt(Buffer.from(plain.toString().toUpperCase())) })));
        }
      } catch (error) {
        const kind = error instanceof E2eCryptoError ? error.kind : 'other';
        socket.end(encodeEdgeMessage(buildMessage.stateClosed({ sequence: sequence++, connId: 1, reason: kind })));
      }
    })();
  });
  let tamper = false;
  // The relay: forwards frames both ways, keeps what it saw, and flips one byte of a Data body when told.
  const relay = createServer((inbound) => {
    sockets.push(inbound);
    const outbound = connect((host.address() as { port: number }).port, '127.0.0.1');
    sockets.push(outbound);
    const forward = (from: Socket, to: Socket) => {
      const reader = new EdgeFrameReader();
      from.on('data', (chunk: Buffer) => {
        reader.append(chunk);
        for (let m = reader.next() as EdgeMessage | undefined; m; m = reader.next() as EdgeMessage | undefined) {
          seenByRelay.push(Buffer.from(m.body));
          let body = m.body;
          if (tamper && body.length > streamHeaderBytes) {
            body = Buffer.from(body);
            body[3]! ^= 0x20;
          }
          to.write(encodeEdgeMessage({ ...m, body }));
        }
      });
      from.on('end', () => to.end());
    };
    forward(inbound, outbound);
    forward(outbound, inbound);
  });
  await Promise.all([once(host.listen(0, '127.0.0.1'), 'listening'), once(relay.listen(0, '127.0.0.1'), 'listening')]);
  const dialerSocket = connect((relay.address() as { port: number }).port, '127.0.0.1');
  sockets.push(dialerSocket);
  try {
    await once(dialerSocket, 'connect');
    const next = frames(dialerSocket);
    const streams = openE2eStreams('dialer', dialerKeys, hostKeys.publicKey);
    let sequence = 1;
    const send = (payload: Buffer) => dialerSocket.write(encodeEdgeMessage(buildMessage.data({ sequence: sequence++, connId: 1, payload })));
    send(streams.encryptor.header);
    assert.equal(streams.decryptor.receive(parseMessage.data(await next()).payload), undefined, "the host's header first");
    const secret = 'the launch code is 0000, tell no router';
    for (let i = 0; i < 3; i++) {
      send(streams.encryptor.encrypt(Buffer.from(`${secret} #${i}`)));
      assert.equal(streams.decryptor.receive(parseMessage.data(await next()).payload)!.toString(), `${secret.toUpperCase()} #${i}`);
    }
    const everything = Buffer.concat(seenByRelay).toString('latin1').toLowerCase();
    assert.equal(everything.includes('launch code'), false, 'the relay never saw the plaintext');
    assert.equal(seenByRelay.length, 8, 'two headers, six messages');

    tamper = true;
    send(streams.encryptor.encrypt(Buffer.from(secret)));
    const closed = parseMessage.stateClosed(await next());
    assert.equal(closed.reason, 'forged', 'the host caught the flipped byte and closed');
  } finally {
    for (const socket of sockets) socket.destroy();
    await Promise.all([new Promise((resolve) => host.close(resolve)), new Promise((resolve) => relay.close(resolve))]);
  }
});

test('a sealed Data frame in one allocation reads as a Data frame whose body opens to the plaintext, in stream order', () => {
  const { sender, receiver } = pair();
  receiver.receive(sender.header);
  const reader = new EdgeFrameReader();
  const plains = [Buffer.from('first'), Buffer.alloc(64 * 1024, 7), Buffer.alloc(0)];
  reader.append(Buffer.concat(plains.map((plain, i) => encodeSealedDataFrame({ sequence: 10 + i, connId: 3, flags: i === 0 ? 4 : undefined }, plain, sender))));
  for (const [i, plain] of plains.entries()) {
    const data = parseMessage.data(reader.next() as EdgeMessage);
    assert.equal(data.sequence, 10 + i);
    assert.equal(data.connId, 3);
    assert.equal(data.flags, i === 0 ? 4 : 0);
    assert.equal(data.payload.length, plain.length + streamOverheadBytes);
    assert.deepEqual(receiver.receive(data.payload), plain);
  }
  assert.equal(reader.next(), undefined);
});
