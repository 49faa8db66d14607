// Who a controller's metrics and spans come from: the OpenTelemetry resource (`target_info` on /metrics, the
// resource of every exported span). The instance id is the controller id, so spans from a cluster tell its members apart.
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';

export const defaultServiceName = 'edgeward-controller';

export function controllerResource(args: { readonly id: string; readonly version: string; readonly serviceName?: string }): Resource {
  return resourceFromAttributes({
    'service.name': args.serviceName ?? defaultServiceName,
    'service.instance.id': args.id,
    'service.version': args.version,
  });
}
