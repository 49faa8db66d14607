// The whole pure pipeline for a YAML config file: parse, expand env vars in string values, validate against a
// schema. Text in, frozen config or problems out; reading the file is the caller's job.

import { dirname } from 'node:path';
import { substituteEnv } from './env-substitution.ts';
import type { Env } from './env-substitution.ts';
import { hasErrors } from './problem.ts';
import type { ConfigProblem } from './problem.ts';
import { validate } from './schema.ts';
import type { Infer, Schema, UnknownKeyPolicy } from './schema.ts';
import { parseYamlSource } from './yaml-source.ts';

export interface ParseConfigOptions {
  /** The file the text came from; relative paths in the config resolve against its directory, so pass it absolute. */
  readonly file: string;
  readonly env: Env;
  /** For objects that do not set their own policy; default 'error'. */
  readonly unknownKeys?: UnknownKeyPolicy;
}

export interface ParsedConfig<T> {
  /** Present only when no problem is an error. */
  readonly config?: T;
  readonly problems: ConfigProblem[];
}

// `any`: accepts a schema of any value type; the result is typed by inference.
export function parseYamlConfig<S extends Schema<any, 'optional' | 'present'>>(schema: S, text: string, options: ParseConfigOptions): ParsedConfig<Infer<S>> {
  const source = parseYamlSource(text);
  if (hasErrors(source.problems)) return { problems: [...source.problems] };
  const result = validate(schema, substituteEnv(source.data, options.env), {
    baseDir: dirname(options.file),
    locate: (path) => source.lineOf(path),
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
  });
  const problems = [...source.problems, ...result.problems];
  return result.value === undefined ? { problems } : { config: result.value, problems };
}
