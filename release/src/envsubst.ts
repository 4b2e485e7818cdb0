// Checks the clusterctl variables of a components file before it is shipped. clusterctl substitutes
// `$NAME` and `${NAME...}` (drone/envsubst syntax) everywhere in the file, descriptions and CEL rules
// included, so a stray `$name` would silently become an empty string at `clusterctl init`. Here every
// `$` before a letter, `_` or `{` must open a well-formed `${NAME}` or `${NAME:=default}` (also `=`,
// `:-`, `-`) whose NAME is declared in variables.ts with that same default; any other `$` (a regex's
// end anchor) stays literal for clusterctl too. A fault is a VariableError naming the variable (or the
// text) and its line.
import { declared } from './variables.ts';

export class VariableError extends Error {
  override name = 'VariableError';
  /** The variable at fault, or the malformed text when no name could be read. */
  readonly variable: string;
  readonly line: number;
  constructor(variable: string, line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.variable = variable;
    this.line = line;
  }
}

export interface VariableUse {
  readonly name: string;
  readonly operator: '' | ':=' | '=' | ':-' | '-';
  readonly default: string | undefined;
  readonly line: number;
}

const NAME = /^[A-Z_][A-Z0-9_]*$/;
const EXPRESSION = /^\$\{([^}:=\-\n]*)(:=|=|:-|-)?([^}\n]*)\}/;

/** Every variable use in `text`; throws VariableError at the first malformed or undeclared one. */
export function variableUses(text: string): VariableUse[] {
  const uses: VariableUse[] = [];
  for (let at = text.indexOf('$'); at >= 0; at = text.indexOf('$', at + 1)) {
    const line = text.slice(0, at).split('\n').length;
    const rest = text.slice(at, at + 200);
    const next = rest.charAt(1);
    // A `$` before anything but `{` or a name stays as it is (a regex's end anchor, `$)`).
    if (next !== '{' && !/[A-Za-z_]/.test(next)) continue;
    if (next !== '{') {
      const bare = /^\$[A-Za-z_][A-Za-z0-9_]*/.exec(rest)?.[0] ?? rest;
      throw new VariableError(
        bare.slice(1),
        line,
        `bare ${bare}: clusterctl would substitute it (empty when unset); write \${NAME:=default} for a variable, or keep $ out of the text`,
      );
    }
    const match = EXPRESSION.exec(rest);
    if (!match) {
      const shown = (/^\$\{?[A-Za-z0-9_]*/.exec(rest)?.[0] ?? '$').trim();
      throw new VariableError(
        shown,
        line,
        `malformed clusterctl variable "${rest.split('\n')[0]}": write \${NAME} or \${NAME:=default} (clusterctl would substitute any other $)`,
      );
    }
    const [expression, name = '', operator = '', value = ''] = match;
    if (!NAME.test(name)) {
      throw new VariableError(name || expression, line, `malformed clusterctl variable name "${name}" in ${expression}: use upper-case letters, digits and _`);
    }
    if (value.includes('$') || (operator === '' && value !== '')) {
      throw new VariableError(name, line, `malformed clusterctl variable ${expression}: its default must be plain text`);
    }
    if (operator !== '' && value === '') {
      throw new VariableError(
        name,
        line,
        `clusterctl variable ${expression} has an empty default, which clusterctl takes for none: \`clusterctl init\` would fail unless ${name} is set`,
      );
    }
    const variable = declared(name);
    if (!variable) {
      throw new VariableError(name, line, `clusterctl variable ${name} is not declared: add it to release/src/variables.ts and document it in the README`);
    }
    const defaultValue = operator === '' ? undefined : value;
    if (defaultValue !== variable.default) {
      throw new VariableError(
        name,
        line,
        `clusterctl variable ${name} has default ${JSON.stringify(defaultValue ?? null)} here but ${
          JSON.stringify(variable.default)
        } in release/src/variables.ts`,
      );
    }
    uses.push({ name, operator: operator as VariableUse['operator'], default: defaultValue, line });
    at += expression.length - 1;
  }
  return uses;
}

/**
 * What clusterctl makes of `text` given `values` (its environment and clusterctl.yaml): `:=` and `:-`
 * take the default when the variable is unset or empty, `=` and `-` only when unset. For tests and
 * previews; checks the text first, like variableUses.
 */
export function substitute(text: string, values: Readonly<Record<string, string | undefined>>): string {
  const uses = variableUses(text);
  if (uses.length === 0) return text;
  return text.replace(/\$\{([A-Z_][A-Z0-9_]*)(:=|=|:-|-)?([^}\n]*)\}/g, (_, name: string, operator: string | undefined, fallback: string) => {
    const value = values[name];
    if (operator === undefined) return value ?? '';
    const unsetOnly = operator === '=' || operator === '-';
    return value === undefined || (!unsetOnly && value === '') ? fallback : value;
  });
}
