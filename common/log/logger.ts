// Structured JSON logger: one object per line (level, time, msg, component, fields).
// The sink is injected so tests can capture lines and drivers can point it at a file or stderr.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(component: string, fields?: LogFields): Logger;
}

export type LogSink = (line: string) => void;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  sink: LogSink;
  level?: LogLevel;
  component?: string;
  fields?: LogFields;
  now?: () => Date;
}

export function createJsonLogger(options: JsonLoggerOptions): Logger {
  const minRank = levelRank[options.level ?? 'info'];
  const now = options.now ?? (() => new Date());
  const base: LogFields = { ...(options.fields ?? {}) };
  const component = options.component ?? 'edgeward';

  const write = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (levelRank[level] < minRank) return;
    const record: LogFields = { level, time: now().toISOString(), msg, component, ...outOfTheWay(base), ...outOfTheWay(fields) };
    options.sink(JSON.stringify(record, errorReplacer));
  };

  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (childComponent, fields) =>
      createJsonLogger({ ...options, component: childComponent, fields: { ...base, ...(fields ?? {}) } }),
  };
}

/** The keys every line has, set by the logger alone: alerts and operators trust them. */
const ownKeys = new Set(['level', 'time', 'msg', 'component']);

/** Fields, with any that would replace one of the logger's own keys renamed `field.<key>` (nothing is lost). */
function outOfTheWay(fields: LogFields | undefined): LogFields {
  if (fields === undefined) return {};
  if (!Object.keys(fields).some((key) => ownKeys.has(key))) return fields;
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [ownKeys.has(key) ? `field.${key}` : key, value]));
}

/** Errors serialise as their name, message and stack rather than `{}`. */
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A logger that remembers its lines: for tests. */
export function createMemoryLogger(level: LogLevel = 'debug'): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createJsonLogger({ sink: (line) => lines.push(JSON.parse(line) as LogFields), level });
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createJsonLogger({ sink: () => undefined, level: 'error' });
