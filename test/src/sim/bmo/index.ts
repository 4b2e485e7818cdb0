// The simulated baremetal-operator (BMO v0.12.6): owns BareMetalHost status on the test apiserver.
//
// Covered, with BMO's rules and order: the finalizer `baremetalhost.metal3.io` (added first, removed
// once a deleted host reaches `deleting`); the pause annotation (nothing at all happens while it is
// present, any value); status restored from the status annotation onto a host without status, and
// the annotation dropped once a status exists; BMC credentials checked against their Secret
// (`registration error` when missing or incomplete, retried after 10 s when the Secret is missing),
// recorded in `triedCredentials`/`goodCredentials` with the Secret's resourceVersion; every state of
// the state machine: '' → registering (or unmanaged without BMC details, `operationalStatus:
// discovered`) → inspecting (skipped with `inspect.metal3.io: disabled` or `inspectionMode:
// disabled`; re-run with `inspect.metal3.io`) → preparing (root device hints, RAID and firmware
// settings saved) → available → provisioning (online with an image or customDeploy) → provisioned
// (`status.provisioning.image`/`customDeploy` record the deployment) → deprovisioning when the image
// or method is removed or changed (cleaning, shorter with `automatedCleaningMode: disabled`) →
// available; externally provisioned hosts; deletion (deprovisioning if provisioned, powering off
// before delete, deleting, finalizer removed); `status.poweredOn` following `spec.online`, with
// `reboot.metal3.io[/*]` holding a provisioned host off; the detached annotation; errors as BMO
// records them (`errorType`, `errorMessage`, `operationalStatus: error`, `errorCount`, reset on the
// next state change) and recovered from as BMO recovers (a failed deployment is deprovisioned and
// tried again); `lastUpdated`, `operationHistory` (register, inspect, provision, deprovision),
// `provisioning.ID` and `bootMode`.
//
// The simulator's own hooks: `sim.metal3-ts.dev/hardware` (JSON overrides of the hardware that
// inspection reports, otherwise derived from the host's name) and `sim.metal3-ts.dev/fail`
// (operations that fail while present). Speeds: `instant` or `bmoTestMode` with overridable timings.
//
// Not covered: Ironic itself and anything only it decides (BMC address formats, boot ISO and
// PreprovisioningImage, DataImage, firmware and RAID actually applied, HostFirmwareSettings,
// HostFirmwareComponents, HardwareData objects, BMCEventSubscription, servicing, live updates of
// firmware), the provisioner's capacity limit (`operationalStatus: delayed`), the owner reference and
// environment label BMO puts on the BMC Secret, Kubernetes Events, reboot annotations being cleared
// on (de)provisioning, the `inspect.metal3.io/hardwaredetails` annotation, the 60 s power poll
// (nothing outside the simulator changes a host's power). Timestamps carry milliseconds (BMO's have
// seconds) so short test timings can be measured; a retried inspection or deprovisioning restarts
// its `operationHistory` entry.
export { type BmoOptions, bmoSimulator, hostChanges } from './controller.ts';
export { AT_ONCE_MS, type HostObservation, type HostStep, nextHostStatus, UnknownStateError } from './state-machine.ts';
export { bmoErrorBackoffMs, type BmoSpeed, bmoTestModeTimings, type BmoTimings, instantTimings, resolveTimings } from './timings.ts';
export { generatedHardware, HardwareOverrideError, inspectedHardware, ironicNodeId, stableUuid } from './hardware.ts';
export { type Fault, FAULTS } from './faults.ts';
export { simulatedHost, type SimulatedHostOptions } from './fixtures.ts';
export * from './names.ts';
