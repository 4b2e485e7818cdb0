// Readers of Prometheus text for the all-in-one test: LISTs per resource in one namespace, from the
// apiserver's apiserver_request_total, and reconciles per controller from the process's own /metrics.

/** Sum of apiserver_request_total{verb="LIST",scope="namespace"} by resource, for `resources`. */
export function listsOf(text: string, resources: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{') || !line.includes('verb="LIST"') || !line.includes('scope="namespace"')) continue;
    if (!line.includes('subresource=""') && /subresource="[^"]/.test(line)) continue;
    const resource = /resource="([^"]*)"/.exec(line)?.[1];
    if (!resource || !resources.includes(resource)) continue;
    out.set(resource, (out.get(resource) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/** controller_runtime_reconcile_total summed by controller. */
export function reconcilesOf(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('controller_runtime_reconcile_total{')) continue;
    const controller = /controller="([^"]*)"/.exec(line)?.[1];
    if (controller) out.set(controller, (out.get(controller) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}
