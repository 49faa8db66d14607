// The names Prometheus gives edgeward's targets, in one place: the scrape configuration writes them, the generated
// rules select and aggregate by them, and the dashboards will query them. Renaming one here renames it everywhere.

export const scrapeNames = {
  jobs: {
    controller: 'edgeward-controller',
    alertsDaemon: 'edgeward-alerts',
    alertmanager: 'alertmanager',
    prometheus: 'prometheus',
  },
  /** Target labels: every target carries `cluster`; a controller's also carries `controller` (its id). */
  labels: {
    cluster: 'cluster',
    controller: 'controller',
  },
  /** The jobs of edgeward's own processes: a target of these that stays down raises EdgewardScrapeTargetDown. */
  edgewardJobs: ['edgeward-controller', 'edgeward-alerts'],
} as const;
