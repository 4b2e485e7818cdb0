// Which write (and get) verbs of the controllers' ClusterRoles the write suite shows, where the
// failure becomes visible, and why the others are not shown: every verb of every manifest is in the
// list/watch suite, in WRITE_CASES or in NOT_SHOWN (coverage.test.ts fails on a verb in none).
import type { SceneName } from './scenes.ts';
import type { ControllerName } from './verbs.ts';

export interface WriteCase {
  readonly controller: ControllerName;
  readonly verb: string;
  /** As the ClusterRole names it: `plural[/sub]` and group. */
  readonly plural: string;
  readonly group: string;
  /** `object`: a condition or errorMessage on the reported object, and the Warning event; `event`: only the event (the refused write is the status write itself, or the object has no status). */
  readonly shows: 'object' | 'event';
  /** The Warning event's reason when the controller reports the refusal itself (default: the worker loop's RequestRefused). */
  readonly eventReason?: string;
  /** The object the event is about when it is not the scene's reported object. */
  readonly eventOn?: { readonly kind: string; readonly name: string };
  /** The scene, when not the controller's own. */
  readonly scene?: SceneName;
}

const INFRA = 'infrastructure.cluster.x-k8s.io';
const IPAM = 'ipam.metal3.io';
const CAPI_IPAM = 'ipam.cluster.x-k8s.io';

export const WRITE_CASES: readonly WriteCase[] = [
  { controller: 'cluster', verb: 'patch', plural: 'metal3clusters', group: INFRA, shows: 'object' },
  { controller: 'cluster', verb: 'patch', plural: 'metal3clusters/status', group: INFRA, shows: 'event' },
  { controller: 'machine', verb: 'patch', plural: 'metal3machines', group: INFRA, shows: 'object' },
  { controller: 'machine', verb: 'patch', plural: 'metal3machines/status', group: INFRA, shows: 'event' },
  { controller: 'machine', verb: 'patch', plural: 'baremetalhosts', group: 'metal3.io', shows: 'object' },
  // The workload cluster's kubeconfig Secret: KubernetesNodeReady False and its own Warning event.
  { controller: 'machine', verb: 'get', plural: 'secrets', group: '', shows: 'object', eventReason: 'WorkloadClusterUnusable' },
  // M-26: the BMC Secret's cluster-name label (AssociateBMH False); given back, the label lands (scene convergence).
  { controller: 'machine', verb: 'patch', plural: 'secrets', group: '', shows: 'object' },
  // M-35: the claim of a Metal3Machine with a data template (the AssociateMetadata / KubernetesNodeReady conditions).
  { controller: 'machine', verb: 'create', plural: 'metal3dataclaims', group: INFRA, shows: 'object', scene: 'machine-data' },
  // the claim of a Metal3Machine being deleted loses our finalizer and is deleted (KubernetesNodeReady False, DisassociateM3MetaDataFailed).
  { controller: 'machine', verb: 'patch', plural: 'metal3dataclaims', group: INFRA, shows: 'object', scene: 'machine-data-delete' },
  { controller: 'machine', verb: 'delete', plural: 'metal3dataclaims', group: INFRA, shows: 'object', scene: 'machine-data-delete' },
  { controller: 'template', verb: 'patch', plural: 'metal3machines', group: INFRA, shows: 'event' },
  { controller: 'dataclaim', verb: 'patch', plural: 'metal3dataclaims', group: INFRA, shows: 'object' },
  { controller: 'dataclaim', verb: 'patch', plural: 'metal3dataclaims/status', group: INFRA, shows: 'event' },
  { controller: 'dataclaim', verb: 'create', plural: 'metal3datas', group: INFRA, shows: 'object' },
  { controller: 'dataclaim', verb: 'patch', plural: 'metal3datatemplates/status', group: INFRA, shows: 'object' },
  // DT-15: a claim being deleted deletes its Metal3Data (errorMessage on the claim).
  { controller: 'dataclaim', verb: 'delete', plural: 'metal3datas', group: INFRA, shows: 'object', scene: 'dataclaim-delete' },
  { controller: 'data', verb: 'patch', plural: 'metal3datas', group: INFRA, shows: 'object' },
  { controller: 'data', verb: 'patch', plural: 'metal3datas/status', group: INFRA, shows: 'event' },
  { controller: 'data', verb: 'get', plural: 'secrets', group: '', shows: 'object' },
  { controller: 'data', verb: 'create', plural: 'secrets', group: '', shows: 'object' },
  // The Metal3DataTemplate controller's owner reference and finalizer: the template has no condition or errorMessage.
  { controller: 'data', verb: 'patch', plural: 'metal3datatemplates', group: INFRA, shows: 'event', eventOn: { kind: 'Metal3DataTemplate', name: 'tmpl' } },
  // D-14/D-18: a claim per pool (errorMessage on the Metal3Data); D-20: released on deletion, our finalizer off, then deleted.
  { controller: 'data', verb: 'create', plural: 'ipclaims', group: IPAM, shows: 'object', scene: 'data-ipam' },
  { controller: 'data', verb: 'patch', plural: 'ipclaims', group: IPAM, shows: 'object', scene: 'data-ipam-delete' },
  { controller: 'data', verb: 'delete', plural: 'ipclaims', group: IPAM, shows: 'object', scene: 'data-ipam-delete' },
  { controller: 'data', verb: 'create', plural: 'ipaddressclaims', group: CAPI_IPAM, shows: 'object', scene: 'data-ipam' },
  { controller: 'data', verb: 'patch', plural: 'ipaddressclaims', group: CAPI_IPAM, shows: 'object', scene: 'data-ipam-delete' },
  { controller: 'data', verb: 'delete', plural: 'ipaddressclaims', group: CAPI_IPAM, shows: 'object', scene: 'data-ipam-delete' },
  // The Metal3Remediation has no condition or errorMessage (CRD): the event on it is the report.
  // RS-10: phase Running; the finalizer; R-10/RS-12: the host's reboot annotation powers it off;
  // RS-11: the workload cluster's kubeconfig Secret, read to look at the Machine's Node.
  { controller: 'remediation', verb: 'patch', plural: 'metal3remediations/status', group: INFRA, shows: 'event' },
  { controller: 'remediation', verb: 'patch', plural: 'metal3remediations', group: INFRA, shows: 'event' },
  { controller: 'remediation', verb: 'patch', plural: 'baremetalhosts', group: 'metal3.io', shows: 'event' },
  { controller: 'remediation', verb: 'get', plural: 'secrets', group: '', shows: 'event' },
  // RS-15/S-1: giving up, after the retry (the case's clock passes both timeouts): the Machine's
  // OwnerRemediated, the template read for node reuse.
  { controller: 'remediation', verb: 'patch', plural: 'machines/status', group: 'cluster.x-k8s.io', shows: 'event', scene: 'remediation-give-up' },
  { controller: 'remediation', verb: 'get', plural: 'metal3machinetemplates', group: INFRA, shows: 'event', scene: 'remediation-give-up' },
];

const EVENTS = 'the event channel itself: a refused Event write cannot be shown as an Event; the recorder logs it at error level naming verb and resource';
const CACHE_READ =
  'not requested in the scene (reads come from the informer cache; a GET is made only to re-read after a conflict or an object missing from the cache)';
const AFTER_ALREADY_EXISTS =
  'made only when a create of the claim finds one the cache has not seen yet (AlreadyExists: a race with another writer of that name), which no scene provokes honestly';

/** A list made directly, not by an informer, so not a list/watch suite case (that suite asks /readyz). */
const DIRECT_LIST =
  "a direct list, not an informer's: only in the out-of-service-taint mode (--out-of-service-taint, off by default), while a tainted Node drains; a refused list fails the reconcile, which the harness retries and reports like any refused request, but the write suite runs the default (classic) mode (controllers/remediation/test/out-of-service.test.ts shows the list under exactly deploy/rbac.yaml, drain-refused.test.ts the refusal as RequestRefused)";

/** B2-15's live read of a released machine's owner: a refusal is not an error, the template it was cloned from decides instead. */
const OWNER_TEMPLATE =
  "read once when a machine releases its host, for the template its owner points to now (B2-15); a refused or failed read falls back to the template the machine was cloned from (CAPM3 v1.12.7's rule), so nothing is shown; controllers/machine/src/phases/delete.test.ts pins both";

/** Storage migration's writes (and its one direct list) happen only after an upgrade changed a CRD's storage version. */
const STORAGE_MIGRATION =
  "storage migration (S-11) writes only when a CRD's storage version changed (an upgrade), which the write scenes' environment never does; src/storage/migration.test.ts runs every controller's migration under exactly its deploy/rbac.yaml through such an upgrade";

/**
 * `controller verb plural` → why the write suite does not show it. A list or watch listed here is not
 * an informer's and so no list/watch suite case either.
 */
export const NOT_SHOWN: Readonly<Record<string, string>> = {
  'cluster get metal3clusters': CACHE_READ,
  'cluster get metal3machines': CACHE_READ,
  'cluster get clusters': CACHE_READ,
  'cluster get machines': CACHE_READ,
  'cluster create events': EVENTS,
  'cluster patch events': EVENTS,
  'machine get metal3machines': CACHE_READ,
  'machine get metal3dataclaims': CACHE_READ,
  'machine get metal3datas': CACHE_READ,
  'machine get metal3clusters': CACHE_READ,
  'machine get metal3machinetemplates': CACHE_READ,
  'machine get baremetalhosts': CACHE_READ,
  'machine get clusters': CACHE_READ,
  'machine get machines': CACHE_READ,
  'machine get machinesets': CACHE_READ,
  'machine create events': EVENTS,
  'machine patch events': EVENTS,
  'template create events': EVENTS,
  'template patch events': EVENTS,
  'dataclaim get metal3dataclaims': CACHE_READ,
  'dataclaim get metal3datas': CACHE_READ,
  'dataclaim patch metal3datas': 'made only to give back a Metal3Data a claim does not use (a lost race), which the scene does not provoke',
  'dataclaim create events': EVENTS,
  'dataclaim patch events': EVENTS,
  'data get metal3datas': CACHE_READ,
  'data get metal3datatemplates': CACHE_READ,
  'data get ipclaims': AFTER_ALREADY_EXISTS,
  'data get ipaddressclaims': AFTER_ALREADY_EXISTS,
  'data create events': EVENTS,
  'data patch events': EVENTS,
  // Label sync writes nothing in the management cluster but events; its one GET needs a workload cluster.
  'labelsync get secrets':
    'the kubeconfig Secret of a workload cluster, read only when a host syncs to a Node there: shown by controllers/labelsync/test/sync.test.ts, which runs the controller as a user bound to exactly its deploy/rbac.yaml beside the workload-cluster simulator (no scene here has a workload cluster)',
  'labelsync create events': EVENTS,
  'labelsync patch events': EVENTS,
  'remediation get machines': `${CACHE_READ}; here only the re-read of the Machine after a conflict of the give-up step's condition merge`,
  'remediation list volumeattachments': DIRECT_LIST,
  'remediation create events': EVENTS,
  'remediation patch events': EVENTS,
  'machine get machinedeployments': OWNER_TEMPLATE,
  'machine get kubeadmcontrolplanes': OWNER_TEMPLATE,
  'cluster list metal3clustertemplates': `a direct list, not an informer's: ${STORAGE_MIGRATION}`,
  'cluster patch metal3clustertemplates': STORAGE_MIGRATION,
  'cluster patch customresourcedefinitions/status': STORAGE_MIGRATION,
  'machine patch customresourcedefinitions/status': STORAGE_MIGRATION,
  'template patch metal3machinetemplates': STORAGE_MIGRATION,
  'template patch customresourcedefinitions/status': STORAGE_MIGRATION,
  'data patch customresourcedefinitions/status': STORAGE_MIGRATION,
  'dataclaim patch customresourcedefinitions/status': STORAGE_MIGRATION,
  'remediation list metal3remediationtemplates': `a direct list, not an informer's: ${STORAGE_MIGRATION}`,
  'remediation patch metal3remediationtemplates': STORAGE_MIGRATION,
  'remediation patch customresourcedefinitions/status': STORAGE_MIGRATION,
};

export const caseKey = (c: { controller: string; verb: string; plural: string }): string => `${c.controller} ${c.verb} ${c.plural}`;

/** A list or watch the list/watch suite shows (an informer's): every one not listed in NOT_SHOWN. */
export const isInformerVerb = (c: { controller: string; verb: string; plural: string }): boolean =>
  (c.verb === 'list' || c.verb === 'watch') && NOT_SHOWN[caseKey(c)] === undefined;
