// The status page's first render, on the page's server: the latest snapshot the gatherer holds (no history; the
// stream brings it), so the first paint already shows the cluster. The page then lives on the stream.
import { StatusPage } from '../components/status-page.tsx';
import { snapshotSource } from '../page-server/snapshot-registry.ts';

export const dynamic = 'force-dynamic';

export default function Page() {
  const source = snapshotSource();
  return <StatusPage initial={source?.latest() ?? null} loginRequired={source?.loginRequired ?? false} />;
}
