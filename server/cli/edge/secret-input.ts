// Passwords and codes for `edgeward edge`, kept off the command line when the operator wants: from a file, from
// standard input (`-`), or typed at a prompt that does not echo, as `ziti edge login` asks when no password is given.
import { readFileSync } from 'node:fs';
import { EdgeUsageError } from './edge-args.ts';
import { EdgeFailure } from './edge-errors.ts';

export interface SecretSource {
  readonly value?: string;
  readonly file?: string;
  readonly prompt: string;
  /** The flag that names a file, for the error when there is nothing to read. */
  readonly flag: string;
}

/** The secret from the first source given: the value, the file (`-` reads standard input), a prompt on a terminal. */
export async function readSecret(source: SecretSource): Promise<string> {
  if (source.value !== undefined) return source.value;
  if (source.file === '-') return firstLine(await readStandardInput());
  if (source.file !== undefined) {
    try {
      return firstLine(readFileSync(source.file, 'utf8'));
    } catch (error) {
      throw new EdgeUsageError(`cannot read ${source.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (process.stdin.isTTY && process.stderr.isTTY) return promptHidden(source.prompt);
  throw new EdgeUsageError(`nothing to read the secret from: give it with ${source.flag} <file> ('-' reads standard input)`);
}

/** A file's text without its final line break (a password file written by `echo` ends in one). */
function firstLine(text: string): string {
  return text.replace(/\r?\n$/, '');
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a line from the terminal without echoing it; Ctrl-C cancels. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          finish();
          resolve(text);
          return;
        }
        if (char === '\u0003' || char === '\u0004') {
          finish();
          reject(new EdgeFailure('cancelled'));
          return;
        }
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
