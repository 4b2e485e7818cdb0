// The Metal3MachineTemplate controller's process: common manager flags (research F-1; `--concurrency`
// stands for CAPM3's `--metal3machinetemplate-concurrency`), one controller. main.ts runs it alone;
// the all-in-one process runs it beside the others.
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { templateController } from './controller.ts';

export const templateEntry = controllerEntry({
  name: 'metal3machinetemplate-controller',
  register(deps) {
    deps.manager.add(templateController(deps));
  },
});
