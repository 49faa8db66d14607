// Sends one command to a controller's agent socket and returns its answer.
import { createConnection } from 'node:net';
import type { AgentResponse } from './agent-protocol.ts';

export function callAgent(socketPath: string, command: string, args: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<AgentResponse> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from the agent socket ${socketPath} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ command, args })}\n`));
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot reach the agent socket ${socketPath}: ${error.message}`));
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(received.trim()) as AgentResponse);
      } catch {
        reject(new Error('the agent answered with something that is not JSON'));
      }
    });
  });
}
