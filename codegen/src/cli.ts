#!/usr/bin/env node
// metal3-codegen: CRD schemas → @metal3-ts/generated.
//
//   generate [--upstream DIR | --fetch]   write generated/src (aside, then swapped in) and its package files
//                                         (README.md, jsr.json, pins in package.json); with CI=true it
//                                         only checks, so a CI run can never hide drift by regenerating
//   check    [--upstream DIR | --fetch]   exit 1 when generated/src differs from what would be written
//   live     --kubeconfig FILE [--out DIR] generate from a running apiserver's /openapi/v3
//   bump     --project P --version V [--replace OLD] [--from DIR | --fetch] [--upstream DIR] [--no-checks]
//                                         move one pinned release to a new version, regenerate, print
//                                         the API changes, type-check everything (docs/codegen.md)
import process from 'node:process';
import { CodegenError } from './errors.ts';
import { diffFiles, diffPackageFiles, generate, generatePackageFiles, loadInputs, writeFiles, writePackageFiles } from './generate.ts';

interface Flags {
  readonly command: string;
  readonly upstream?: string;
  readonly fetch: boolean;
  readonly kubeconfig?: string;
  readonly out?: string;
  readonly project?: string;
  readonly version?: string;
  readonly replace?: string;
  readonly from?: string;
  readonly checks: boolean;
}

function parseFlags(argv: readonly string[]): Flags {
  const [command = 'help', ...rest] = argv;
  const values: Record<string, string> = {};
  const switches = { fetch: false, checks: true };
  const valued = ['--upstream', '--kubeconfig', '--out', '--project', '--version', '--replace', '--from'];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (valued.includes(arg)) values[arg.slice(2)] = value();
    else if (arg === '--fetch') switches.fetch = true;
    else if (arg === '--no-checks') switches.checks = false;
    else throw new UsageError(`unknown flag ${arg}`);
  }
  return { command, ...values, ...switches };
}

class UsageError extends Error {}

async function main(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv);
  const started = performance.now();
  const resolveOptions = { ...(flags.upstream ? { directory: flags.upstream } : {}), fetch: flags.fetch };
  const command = flags.command === 'generate' && process.env['CI'] === 'true' ? 'check' : flags.command;
  switch (command) {
    case 'generate': {
      const files = await generate(await loadInputs(resolveOptions));
      writeFiles(files);
      writePackageFiles(generatePackageFiles(files));
      const bytes = [...files.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
      console.error(`metal3-codegen: wrote ${files.size} files (${(bytes / 1024).toFixed(0)} KiB) in ${((performance.now() - started) / 1000).toFixed(2)} s`);
      return 0;
    }
    case 'check': {
      const files = await generate(await loadInputs(resolveOptions));
      const drift = [...diffFiles(files), ...diffPackageFiles(generatePackageFiles(files)).map((d) => d.replace(': ', ': ../'))];
      if (drift.length > 0) {
        console.error(`metal3-codegen: generated/src is out of date; run \`npm run codegen\` and commit:\n  ${drift.join('\n  ')}`);
        return 1;
      }
      console.error(`metal3-codegen: generated/src is up to date (${((performance.now() - started) / 1000).toFixed(2)} s)`);
      return 0;
    }
    case 'live': {
      if (!flags.kubeconfig) throw new UsageError('live needs --kubeconfig FILE');
      const { generateLive } = await import('./live.ts');
      const out = await generateLive({ kubeconfigPath: flags.kubeconfig, ...(flags.out ? { outDir: flags.out } : {}) });
      console.error(`metal3-codegen: wrote ${out.files} files to ${out.dir}`);
      return 0;
    }
    case 'bump': {
      if (!flags.project || !flags.version) throw new UsageError('bump needs --project NAME --version vX.Y.Z');
      if (flags.from && flags.fetch) throw new UsageError('bump takes --from DIR or --fetch, not both');
      const { runBump } = await import('./bump-run.ts');
      return await runBump({ ...flags, project: flags.project, version: flags.version });
    }
    default:
      console.error(
        'usage: metal3-codegen generate|check [--upstream DIR | --fetch]\n       metal3-codegen live --kubeconfig FILE [--out DIR]\n' +
          '       metal3-codegen bump --project NAME --version vX.Y.Z [--replace OLD] [--from DIR | --fetch] [--upstream DIR] [--no-checks]',
      );
      return command === 'help' ? 0 : 2;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof CodegenError || error instanceof UsageError) {
    console.error(`metal3-codegen: ${error.message}`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
