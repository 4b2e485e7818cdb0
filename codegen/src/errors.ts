/**
 * The one error codegen reports: what is wrong, in which file, and where in it (a JSON path such as
 * `spec.versions[0].schema.openAPIV3Schema.properties.spec`). The CLI prints it on one line.
 */
export class CodegenError extends Error {
  override readonly name = 'CodegenError';
  readonly file: string;
  readonly path: string | undefined;

  constructor(message: string, file: string, path?: string) {
    super(`${file}${path ? ` at ${path}` : ''}: ${message}`);
    this.file = file;
    this.path = path;
  }
}
