// Control-plane endpoint validation (research C-13). Upstream checks only "host non-empty and port
// non-zero" and, when that fails, returns an error forever (the object is retried with backoff while
// nothing can change until someone edits it). Here an invalid endpoint is a finding, not an error: the
// caller reports it in the BaremetalInfrastructureReady conditions with the field named, and waits
// for the next edit.
//
// Checked after W-2 defaulting, so port 0 is 6443 and valid. Beyond upstream, the host must be
// something a client can dial as `https://<host>:<port>`: an IP address or a DNS name, without a
// scheme, port, path or whitespace (Cluster API joins host and port itself, brackets included).
// Names may hold '_' and end in '.', which DNS allows and some sites use for internal API names
// (stricter than the RFC 1123 hostnames the machine copies from inspection data); an IPv6 address
// may not carry a zone (`%eth0`), which names an interface of one machine, not of every node.
import type { Metal3ClusterSpecControlPlaneEndpoint } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isDnsName, isIP } from '@metal3-ts/shared/meta/dns';
import { DEFAULT_API_SERVER_PORT } from '../names.ts';

export const ENDPOINT_FIELD = 'spec.controlPlaneEndpoint';
export const HOST_FIELD = `${ENDPOINT_FIELD}.host`;
export const PORT_FIELD = `${ENDPOINT_FIELD}.port`;

/** One thing wrong with the endpoint, worded like an apiserver field error. */
export interface EndpointProblem {
  readonly field: typeof ENDPOINT_FIELD | typeof HOST_FIELD | typeof PORT_FIELD;
  readonly message: string;
}

const MAX_PORT = 65_535;

/** Every problem of `endpoint`; an empty list means valid. */
export function validateControlPlaneEndpoint(endpoint: Readonly<Partial<Metal3ClusterSpecControlPlaneEndpoint>> | undefined): EndpointProblem[] {
  if (!endpoint) return [{ field: ENDPOINT_FIELD, message: `${ENDPOINT_FIELD}: Required value: the workload cluster's API server address must be set` }];
  const problems: EndpointProblem[] = [];
  const hostProblem = checkHost(endpoint.host);
  if (hostProblem) problems.push({ field: HOST_FIELD, message: `${HOST_FIELD}: ${hostProblem}` });
  const portProblem = checkPort(endpoint.port);
  if (portProblem) problems.push({ field: PORT_FIELD, message: `${PORT_FIELD}: ${portProblem}` });
  return problems;
}

/** The problems as one condition message. */
export function describeProblems(problems: readonly EndpointProblem[]): string {
  return problems.map((p) => p.message).join('; ');
}

function checkHost(host: unknown): string | undefined {
  if (host === undefined || host === null || host === '') return 'Required value: must be the IP address or DNS name of the API server';
  if (typeof host !== 'string') return `Invalid value: ${JSON.stringify(host)}: must be a string`;
  if (isIP(host)) return undefined;
  if (!isEndpointName(host)) {
    return `Invalid value: ${JSON.stringify(host)}: must be an IP address or a DNS name, without scheme, port, path or brackets`;
  }
  return undefined;
}

function isEndpointName(host: string): boolean {
  if (!isDnsName(host, { underscore: true, trailingDot: true })) return false;
  // All-numeric dotted names are meant as IPv4 addresses; isIP has refused this one (e.g. 300.1.1.1).
  const labels = (host.endsWith('.') ? host.slice(0, -1) : host).split('.');
  return !labels.every((label) => /^\d+$/.test(label));
}

function checkPort(port: unknown): string | undefined {
  // 0 (and a missing port, which the CRD forbids) mean the Kubernetes default (W-2).
  const effective = port === 0 || port === undefined || port === null ? DEFAULT_API_SERVER_PORT : port;
  if (typeof effective !== 'number' || !Number.isInteger(effective) || effective < 1 || effective > MAX_PORT) {
    return `Invalid value: ${JSON.stringify(port)}: must be between 1 and ${MAX_PORT} (0 means ${DEFAULT_API_SERVER_PORT})`;
  }
  return undefined;
}
