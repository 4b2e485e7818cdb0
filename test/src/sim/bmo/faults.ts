// Error injection: which simulated operations fail for a host, read from its FAIL_ANNOTATION.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { FAIL_ANNOTATION } from './names.ts';

export const FAULTS = ['registration', 'inspection', 'preparation', 'provisioning', 'deprovisioning', 'power'] as const;
export type Fault = (typeof FAULTS)[number];

const known: ReadonlySet<string> = new Set(FAULTS);

/** The operations that fail while the annotation is present; unknown names are ignored. */
export function injectedFaults(host: Readonly<BareMetalHost>): ReadonlySet<Fault> {
  const value = host.metadata.annotations?.[FAIL_ANNOTATION] ?? '';
  return new Set(value.split(',').map((s) => s.trim()).filter((s): s is Fault => known.has(s)));
}

/** The error message an injected failure reports. */
export function faultMessage(fault: Fault): string {
  return `simulated ${fault} failure (annotation ${FAIL_ANNOTATION})`;
}
