// The Metal3MachineTemplate controller's process: common manager flags (research F-1; `--concurrency`
// stands for CAPM3's `--metal3machinetemplate-concurrency`), one controller and its storage
// migration. main.ts runs it alone; the all-in-one process runs it beside the others.
import { Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { templateController } from './controller.ts';
import { CONTROLLER_NAME } from './names.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3MachineTemplate. */
export const MIGRATED_KINDS = [Metal3MachineTemplateResource] as const;

export const templateEntry = controllerEntry({
  name: 'metal3machinetemplate-controller',
  register(deps) {
    deps.manager.add(templateController(deps));
    deps.manager.add(storageMigrationController(CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
