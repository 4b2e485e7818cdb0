import { roundTripSuite } from './testing/trips.ts';

roundTripSuite(['Metal3Data', 'Metal3DataClaim', 'Metal3Remediation', 'Metal3RemediationTemplate']);
