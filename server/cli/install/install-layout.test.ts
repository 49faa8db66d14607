import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyLayout, removeLayout } from './install-layout.ts';

/** A small release tree with what planLayout expects (units, sysusers/tmpfiles, example configs, generated files). */
function fakeTree(dir: string, variant: string, extra: Record<string, string> = {}): void {
  const files: Record<string, string> = {
    'edgeward': '#!/bin/sh\n',
    'lib/server/cli/main.js': `// ${variant}\n`,
    'share/systemd/edgeward-controller@.service': 'ExecStart=/opt/edgeward/edgeward controller run /etc/edgeward/controller/%i.yml\n',
    'share/systemd/edgeward-router@.service': 'ExecStart=/opt/edgeward/edgeward router run\n',
    'share/systemd/edgeward-alerts.service': 'ExecStart=/opt/edgeward/edgeward alerts run\n',
    'share/systemd/edgeward-dashboard.service': 'ExecStart=/opt/edgeward/edgeward dashboard run\n',
    'share/systemd/edgeward.sysusers.conf': 'u edgeward -\n',
    'share/systemd/edgeward.tmpfiles.conf': 'd /var/lib/edgeward\n',
    'share/systemd/ctrl.example.yml': `# controller ${variant}\n`,
    'share/systemd/router.example.yml': '# router\n',
    'share/systemd/alerts.example.yml': `# alerts ${variant}\n`,
    'share/systemd/dashboard.example.yml': '# dashboard\n',
    'share/prometheus/prometheus.yml': '# prometheus\n',
    'share/prometheus/rules/edgeward-rules.yml': 'groups: []\n',
    'share/alertmanager/alertmanager.yml': '# alertmanager\n',
    'share/systemd/prometheus-loopback.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/prometheus --web.listen-address=127.0.0.1:9090 $ARGS\n',
    'share/systemd/alertmanager-loopback.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/prometheus-alertmanager --web.listen-address=127.0.0.1:9093 --cluster.listen-address= $ARGS\n',
    ...extra,
  };
  rmSync(dir, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

test('an upgrade replaces code and unedited configs, keeps edited ones and an existing prometheus.yml, and drops files the new release lacks', () => {
  const work = mkdtempSync(join(tmpdir(), 'edgeward-layout-'));
  try {
    const tree = join(work, 'tree');
    const root = join(work, 'root');
    mkdirSync(join(root, 'etc', 'prometheus'), { recursive: true });
    writeFileSync(join(root, 'etc', 'prometheus', 'prometheus.yml'), '# the operator\'s\n');
    fakeTree(tree, 'v1', { 'lib/old-only.js': 'old\n' });
    const first = applyLayout(tree, root, '/srv/edgeward', 'v1');
    assert.ok(first.written.includes('/etc/edgeward/controller/ctrl1.yml'));
    assert.ok(first.written.includes('/etc/prometheus/alertmanager.yml'), 'absent: ours is written');
    assert.ok(!first.manifest.files.some((entry) => entry.path === '/etc/prometheus/prometheus.yml'), 'present: the operator\'s is not ours');
    assert.equal(readFileSync(join(root, 'etc', 'prometheus', 'prometheus.yml'), 'utf8'), '# the operator\'s\n');
    assert.match(readFileSync(join(root, 'etc/systemd/system/edgeward-controller@.service'), 'utf8'), /^ExecStart=\/srv\/edgeward\/edgeward controller run \/etc\/edgeward\/controller\/%i\.yml$/m, '--prefix rewrites the units');

    writeFileSync(join(root, 'etc/edgeward/alerts.yml'), '# edited\n');
    fakeTree(tree, 'v2');
    const upgrade = applyLayout(tree, root, '/srv/edgeward', 'v2');
    assert.equal(readFileSync(join(root, 'etc/edgeward/controller/ctrl1.yml'), 'utf8'), '# controller v2\n', 'unedited: the new example');
    assert.equal(readFileSync(join(root, 'etc/edgeward/alerts.yml'), 'utf8'), '# edited\n');
    assert.ok(upgrade.keptEdited.includes('/etc/edgeward/alerts.yml'));
    assert.equal(readFileSync(join(root, 'srv/edgeward/lib/server/cli/main.js'), 'utf8'), '// v2\n');
    assert.deepEqual(upgrade.removed, ['/srv/edgeward/lib/old-only.js']);
    assert.ok(!existsSync(join(root, 'srv/edgeward/lib/old-only.js')));

    const kept = removeLayout(root, '/srv/edgeward', false);
    assert.deepEqual(kept.keptEdited, ['/etc/edgeward/alerts.yml']);
    assert.ok(existsSync(join(root, 'etc/edgeward/alerts.yml')));
    assert.ok(!existsSync(join(root, 'srv/edgeward')), 'the prefix is gone');
    assert.ok(!existsSync(join(root, 'etc/edgeward/controller')), 'emptied folders it created are gone');
    assert.equal(readFileSync(join(root, 'etc', 'prometheus', 'prometheus.yml'), 'utf8'), '# the operator\'s\n');
    assert.ok(!existsSync(join(root, 'etc', 'prometheus', 'alertmanager.yml')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('Debian\'s Prometheus and Alertmanager are bound to loopback by drop-ins; an install that opts out removes them unless edited', () => {
  const work = mkdtempSync(join(tmpdir(), 'edgeward-layout-'));
  try {
    const tree = join(work, 'tree');
    const root = join(work, 'root');
    mkdirSync(root);
    fakeTree(tree, 'v1');
    const prometheus = '/etc/systemd/system/prometheus.service.d/edgeward-loopback.conf';
    const alertmanager = '/etc/systemd/system/prometheus-alertmanager.service.d/edgeward-loopback.conf';
    const first = applyLayout(tree, root, '/opt/edgeward', 'v1');
    assert.ok(first.written.includes(prometheus) && first.written.includes(alertmanager));
    assert.match(readFileSync(join(root, prometheus), 'utf8'), /^ExecStart=\/usr\/bin\/prometheus --web\.listen-address=127\.0\.0\.1:9090 \$ARGS$/m);
    assert.match(readFileSync(join(root, alertmanager), 'utf8'), /--web\.listen-address=127\.0\.0\.1:9093 --cluster\.listen-address= \$ARGS$/m);

    // The operator opts out: the unedited drop-ins go, an edited one stays.
    writeFileSync(join(root, alertmanager), '[Service]\n# mine\n');
    const optOut = applyLayout(tree, root, '/opt/edgeward', 'v1', { loopbackMonitoring: false });
    assert.ok(optOut.removed.includes(prometheus));
    assert.ok(!existsSync(join(root, prometheus)));
    assert.equal(readFileSync(join(root, alertmanager), 'utf8'), '[Service]\n# mine\n');
    assert.ok(!optOut.manifest.files.some((entry) => entry.path === prometheus || entry.path === alertmanager));
    const again = applyLayout(tree, root, '/opt/edgeward', 'v1', { loopbackMonitoring: false });
    assert.deepEqual(again.written, []);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a --root folder that does not exist yet is made, not climbed forever', () => {
  const work = mkdtempSync(join(tmpdir(), 'edgeward-layout-'));
  try {
    const tree = join(work, 'tree');
    fakeTree(tree, 'v1');
    const root = join(work, 'not-yet');
    applyLayout(tree, root, '/opt/edgeward', 'v1');
    assert.ok(existsSync(join(root, 'opt/edgeward/edgeward')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
