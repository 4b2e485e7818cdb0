// The Metal3MachineTemplate controller process: common manager flags (research F-1; `--concurrency`
// stands for CAPM3's `--metal3machinetemplate-concurrency`), one controller.
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { templateController } from './controller.ts';

await runMain({
  name: 'metal3machinetemplate-controller',
  register(deps) {
    deps.manager.add(templateController(deps));
  },
});
