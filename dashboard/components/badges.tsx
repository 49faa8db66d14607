// Small status marks: a word with the status colour (never the colour alone).
import type { ReactNode } from 'react';
import type { Level } from '../state/snapshot.ts';

export function Badge({ level, children, title }: { level: Level | 'muted'; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${level}`} title={title}>
      {children}
    </span>
  );
}

export function YesNo({ value, good = true }: { value: boolean | undefined; good?: boolean }) {
  if (value === undefined) return <span className="muted">—</span>;
  return <Badge level={value === good ? 'ok' : 'warn'}>{value ? 'yes' : 'no'}</Badge>;
}
