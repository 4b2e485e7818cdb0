// The conversion webhook process (run.ts says what it does). The converter is the API's conversion
// rules, one pure function per kind (converters.ts wires them).
import { nodeProcess } from '@metal3-ts/shared/manager/signals';
import { converter } from './converters.ts';
import { runWebhook } from './run.ts';

nodeProcess.exit(await runWebhook({ name: 'metal3-ts-conversion', converter }));
