// The TLS cipher suites a link offers (dialer) and picks (listener, by its own order): AES-128-GCM first, as Go's TLS
// (and so OpenZiti's routers) prefers on CPUs with AES instructions. Node's default puts AES-256-GCM first, whose 14
// rounds make it about 1.5x dearer per byte (openssl speed on the bench machine: 3.7 against 2.5 GB/s for 16 KiB
// records); every byte of every circuit is sealed by one router and opened by the next, so that is CPU per MB on
// every hop. Both are AEADs with 128-bit or better security; the rest of Node's defaults (TLS 1.2 suites) follow.
import { DEFAULT_CIPHERS } from 'node:tls';

const preferredTls13 = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** The `ciphers` option of both ends of a link. */
export const linkCiphers = [...preferredTls13, ...DEFAULT_CIPHERS.split(':').filter((suite) => suite !== '' && !preferredTls13.includes(suite))].join(':');
