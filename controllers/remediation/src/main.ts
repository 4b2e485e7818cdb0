// The Metal3Remediation controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { remediationEntry } from './entry.ts';

await runMain(remediationEntry);
