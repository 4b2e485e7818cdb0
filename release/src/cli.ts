// `npm run config` writes config/'s generated files (sync.ts; `-- --check` only reports drift);
// `npm run components [-- --out DIR]` renders the clusterctl release into dist/release/
// (components.ts). Errors name the file, object or variable at fault and exit 1.
import process from 'node:process';
import { relative } from 'node:path';
import { writeRelease } from './components.ts';
import { ROOT } from './layout.ts';
import { configDrift, writeConfig } from './sync.ts';

const [command, ...rest] = process.argv.slice(2);

function option(name: string): string | undefined {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : undefined;
}

try {
  if (command === 'config') {
    if (rest.includes('--check')) {
      const drift = configDrift();
      if (drift.length > 0) {
        console.error(`config/ is out of date (run npm run config):\n  ${drift.join('\n  ')}`);
        process.exit(1);
      }
      console.log('config/ is up to date');
    } else {
      const changed = writeConfig();
      console.log(changed.length > 0 ? `config/: wrote\n  ${changed.join('\n  ')}` : 'config/: nothing changed');
    }
  } else if (command === 'components') {
    const out = option('--out');
    const release = await writeRelease(...(out ? [out] : []));
    const names = [...new Set(release.variables.map((v) => v.name))].join(', ');
    console.log(`${release.version} (contract ${release.contract}): ${release.objects.length} objects, variables ${names}`);
    for (const f of release.files) console.log(`  ${relative(ROOT, f)}`);
  } else {
    console.error('usage: cli.ts config [--check] | components [--out DIR]');
    process.exit(2);
  }
} catch (error) {
  console.error(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
