// A GET with a deadline and a size limit, over HTTPS with the cluster's CA bundle (or plain HTTP): what the health
// and metric polls need, and nothing that could hang or buffer without bound.

import { request as httpRequest } from 'node:http';
import type { Agent as HttpAgent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Agent as HttpsAgent } from 'node:https';

export interface GetOptions {
  readonly timeout: number;
  readonly maxBytes: number;
  readonly httpsAgent: HttpsAgent;
  readonly httpAgent: HttpAgent;
}

export interface GetResult {
  readonly status: number;
  readonly body: string;
}

export function httpGet(url: string, options: GetOptions): Promise<GetResult> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const req = (secure ? httpsRequest : httpRequest)(target, { method: 'GET', agent: secure ? options.httpsAgent : options.httpAgent, headers: { accept: 'text/plain, */*' } });
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeout} ms`)), options.timeout);
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) req.destroy(new Error(`answer larger than ${options.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
    });
    req.end();
  });
}
