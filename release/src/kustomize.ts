// Runs the real kustomize (built from its Go module by test/envtest/bins/build-tools.sh, or $KUSTOMIZE)
// on a directory of config/. A maintainer and test tool: rendering needs Go once (or a kustomize
// binary); installing the rendered components needs neither.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ROOT } from './layout.ts';

const run = promisify(execFile);

export class ToolError extends Error {
  override name = 'ToolError';
}

/** The path of a tool of build-tools.sh (`kustomize` or `clusterctl`), building it when missing. */
export async function toolPath(tool: 'kustomize' | 'clusterctl'): Promise<string> {
  const script = join(ROOT, 'test/envtest/bins/build-tools.sh');
  try {
    const { stdout } = await run('bash', [script, '--quiet', '--print', tool], { maxBuffer: 1 << 20 });
    const path = new RegExp(`^${tool}=(.+)$`, 'm').exec(stdout)?.[1];
    if (!path) throw new ToolError(`${script} printed no path for ${tool}`);
    return path;
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new ToolError(`cannot get ${tool}: ${stderr || (error as Error).message}`);
  }
}

/** `kustomize build <dir>`'s output; a failure carries kustomize's own message. */
export async function kustomizeBuild(dir: string, kustomize?: string): Promise<string> {
  const bin = kustomize ?? (await toolPath('kustomize'));
  try {
    const { stdout } = await run(bin, ['build', dir], { maxBuffer: 64 << 20 });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new ToolError(`kustomize build ${dir} failed: ${stderr || (error as Error).message}`);
  }
}
