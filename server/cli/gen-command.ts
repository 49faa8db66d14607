// `./edgeward gen rules|alertmanager|dashboards <dir>`: the alerting generators and the dashboards generator in
// one command. Put together here, in the CLI's composition root, so that alerts/ and grafana/ import one way only
// (grafana/ reads alerts/' catalogue and monitoring mixin; alerts/ imports nothing from grafana/).
import { alertGenerators } from '../../alerts/cli/gen-command.ts';
import { genCommand } from '../../alerts/cli/generator.ts';
import { dashboardsGenerator } from '../../grafana/generate/dashboards-generator.ts';

const gen = genCommand([...alertGenerators, dashboardsGenerator]);

export const generators = gen.generators;
export const genCommandLine = gen.commandLine;
export const runGenCommand = gen.run;
