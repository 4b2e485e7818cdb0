#!/usr/bin/env node
// metal3-codegen: CRD schemas → @metal3-ts/generated.
//
//   generate [--upstream DIR | --fetch]   write generated/src (aside, then swapped in) and its package files
//                                         (README.md, jsr.json, pins in package.json); with CI=true it
//                                         only checks, so a CI run can never hide drift by regenerating
//   check    [--upstream DIR | --fetch]   exit 1 when generated/src differs from what would be written
//   live     --kubeconfig FILE [--out DIR] generate from a running apiserver's /openapi/v3
import process from 'node:process';
import { CodegenError } from './errors.ts';
import { diffFiles, diffPackageFiles, generate, generatePackageFiles, loadInputs, writeFiles, writePackageFiles } from './generate.ts';

interface Flags {
  readonly command: string;
  readonly upstream?: string;
  readonly fetch: boolean;
  readonly kubeconfig?: string;
  readonly out?: string;
}

function parseFlags(argv: readonly string[]): Flags {
  const [command = 'help', ...rest] = argv;
  const flags: { upstream?: string; fetch: boolean; kubeconfig?: string; out?: string } = { fetch: false };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === '--upstream') flags.upstream = value();
    else if (arg === '--fetch') flags.fetch = true;
    else if (arg === '--kubeconfig') flags.kubeconfig = value();
    else if (arg === '--out') flags.out = value();
    else throw new UsageError(`unknown flag ${arg}`);
  }
  return { command, ...flags };
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
    default:
      console.error('usage: metal3-codegen generate|check [--upstream DIR | --fetch]\n       metal3-codegen live --kubeconfig FILE [--out DIR]');
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
