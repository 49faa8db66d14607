// YAML for Go programs (Prometheus, promtool, Alertmanager, amtool) written from plain objects. Go's YAML library
// reads YAML 1.1, where an unquoted `yes`, `on` or `n` is a boolean, so strings are quoted by the 1.1 rules; long
// lines are never folded and multi-line strings (PromQL) are literal blocks, so the text reads as it was written.
import { stringify } from 'yaml';

export function goYamlText(value: unknown, headerComment: readonly string[] = []): string {
  const header = headerComment.map((line) => (line === '' ? '#\n' : `# ${line}\n`)).join('');
  return header + stringify(value, { version: '1.1', lineWidth: 0, blockQuote: 'literal', indent: 2 });
}
