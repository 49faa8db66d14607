// Fetches a JWKS document over HTTPS with hard limits. The endpoint is configured by an admin but served by a third
// party, so a slow, huge or plain-HTTP answer must fail the fetch instead of hanging logins or filling memory.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { get } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkedJwksAddress, type JwksAddressPolicy, type ResolvedAddress } from './jwks-address-policy.ts';

export class JwksFetchError extends Error {
  override readonly name = 'JwksFetchError';

  constructor(
    readonly endpoint: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`JWKS fetch from ${endpoint} failed: ${problem}`, options);
  }
}

export interface JwksFetchLimits {
  /** Every CA the TLS connection may chain to (Node's roots plus any the admin trusts). */
  readonly ca: readonly string[];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Which addresses the endpoint may resolve to (jwks-address-policy.ts). */
  readonly addresses: JwksAddressPolicy;
}

/** The JWKS document as parsed JSON, guaranteed to be an object with a `keys` array. */
export interface JwksDocument {
  readonly keys: readonly unknown[];
}

/** Parses the endpoint and refuses anything but https: keys fetched in the clear could be swapped in transit. */
export function httpsEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new JwksFetchError(endpoint, 'the endpoint is not a valid URL');
  }
  if (url.protocol !== 'https:') throw new JwksFetchError(displayEndpoint(url), `only https:// endpoints are allowed, not ${url.protocol}//`);
  return url;
}

export function fetchJwksDocument(url: URL, limits: JwksFetchLimits): Promise<JwksDocument> {
  const endpoint = displayEndpoint(url);
  return new Promise((resolve, reject) => {
    let settled = false;
    let request: ClientRequest | undefined;
    const finish = (outcome: { document: JwksDocument } | { problem: string; cause?: unknown }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request?.destroy();
      if ('document' in outcome) resolve(outcome.document);
      else reject(new JwksFetchError(endpoint, outcome.problem, { cause: outcome.cause }));
    };
    // One deadline for connect, TLS, headers and body: a server trickling bytes must not hold a login forever.
    const deadline = setTimeout(() => finish({ problem: `timed out after ${limits.timeoutMs} ms` }), limits.timeoutMs);

    const onResponse = (response: IncomingMessage): void => {
      if (response.statusCode !== 200) {
        response.resume();
        finish({ problem: `HTTP status ${response.statusCode ?? 'unknown'}` });
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (declared > limits.maxBytes) {
        finish({ problem: `the response is too large (${declared} bytes, limit ${limits.maxBytes})` });
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxBytes) finish({ problem: `the response is too large (over the ${limits.maxBytes} byte limit)` });
        else chunks.push(chunk);
      });
      response.on('error', (error) => finish({ problem: `the response was cut off: ${error.message}`, cause: error }));
      response.on('end', () => finish(parseDocument(Buffer.concat(chunks).toString('utf8'))));
    };

    const connect = (target: ResolvedAddress): void => {
      if (settled) return;
      try {
        // The connection goes to the address that was checked; TLS still verifies the endpoint's own name.
        request = get(url, { ca: [...limits.ca], agent: false, lookup: pinnedLookup(target), headers: { accept: 'application/jwk-set+json, application/json' } }, onResponse);
        request.on('error', (error: Error) => finish({ problem: error.message, cause: error }));
      } catch (error) {
        finish({ problem: error instanceof Error ? error.message : String(error), cause: error });
      }
    };
    checkedJwksAddress(url.hostname.replace(/^\[|\]$/g, ''), limits.addresses).then(
      (checked) => ('target' in checked ? connect(checked.target) : finish({ problem: checked.refused })),
      (error: Error) => finish({ problem: `cannot resolve ${url.hostname}: ${error.message}`, cause: error }),
    );
  });
}

/** A lookup that answers every name with the one checked address (Node asks for `all` when it races families). */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

function parseDocument(body: string): { document: JwksDocument } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { problem: 'the response is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    return { problem: 'the response has no "keys" array' };
  }
  return { document: parsed as JwksDocument };
}

/** The endpoint for messages and logs, without any credentials embedded in the URL. */
export function displayEndpoint(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href;
}
