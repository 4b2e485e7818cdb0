// A host selector as Kubernetes label requirements (H-2, H-3): built, validated and matched exactly
// as apimachinery's `labels.NewRequirement` / `Requirement.Matches` do, so an in-memory match over the
// cache gives the same hosts as a server-side list with the same selector.
import type { LabelSelector } from '@metal3-ts/generated';

/**
 * Operator spellings after lower-casing (H-3): `!` is does-not-exist. Changed from upstream (E-33):
 * `DoesNotExist`, the spelling of Kubernetes' own LabelSelector, is accepted as `!` too.
 */
export type LabelOperator = 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted, as apimachinery keeps them. */
  readonly values: readonly string[];
}

/** The host selector cannot be turned into requirements; retrying does not help until it is edited. */
export class InvalidHostSelectorError extends Error {
  override name = 'InvalidHostSelectorError';
}

const operators: ReadonlySet<string> = new Set<LabelOperator>(['in', 'notin', 'exists', '!', '=', '==', '!=', 'gt', 'lt']);
const nameRe = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const int64Re = /^[+-]?[0-9]+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Why `key` is not a qualified label key (`[prefix/]name`), or undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') return 'prefix part must be non-empty';
    if (prefix.length > 253 || !dns1123SubdomainRe.test(prefix)) return 'prefix part must be a lowercase RFC 1123 subdomain';
  } else if (parts.length > 2) {
    return "a qualified name has at most one '/'";
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!nameRe.test(name)) return "name part must consist of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  return undefined;
}

/** Why `value` is not a label value (empty is allowed), or undefined when it is one. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!nameRe.test(value)) return "must consist of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  return undefined;
}

/** Go's strconv.ParseInt(s, 10, 64), as a bigint; undefined when it would fail. */
function parseInt64(text: string): bigint | undefined {
  if (!int64Re.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/**
 * One requirement, validated as apimachinery does: qualified key; `in`/`notin` at least one value;
 * `=`/`==`/`!=` exactly one; `exists`/`!` none; `gt`/`lt` exactly one base-10 int64; every value a
 * valid label value. The operator is taken as given (callers lower-case first, H-3).
 */
export function labelRequirement(key: string, operator: string, values: readonly string[] = []): LabelRequirement {
  const fail = (why: string): never => {
    throw new InvalidHostSelectorError(`invalid host selector requirement ${JSON.stringify({ key, operator, values })}: ${why}`);
  };
  const keyProblem = labelKeyProblem(key);
  if (keyProblem) fail(`key: ${keyProblem}`);
  if (!operators.has(operator)) fail(`operator '${operator}' is not recognized`);
  const op = operator as LabelOperator;
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) fail("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) fail('exact-match compatibility requires one single value');
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) fail('values set must be empty for exists and does not exist');
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) fail("for 'Gt', 'Lt' operators, exactly one value is required");
      if (parseInt64(values[0] ?? '') === undefined) fail("for 'Gt', 'Lt' operators, the value must be an integer");
      break;
  }
  for (const value of values) {
    const problem = labelValueProblem(value);
    if (problem) fail(`value ${JSON.stringify(value)}: ${problem}`);
  }
  return { key, operator: op, values: [...values].sort() };
}

/**
 * The requirements of a host selector (H-2, H-3): each `matchLabels` entry is an equality, each
 * `matchExpressions` entry keeps its values and has its operator lower-cased. All are AND-ed.
 * Throws InvalidHostSelectorError for any invalid entry.
 */
export function hostSelectorRequirements(selector: Readonly<LabelSelector> | undefined): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) requirements.push(labelRequirement(key, '=', [value]));
  for (const expression of selector?.matchExpressions ?? []) {
    const operator = expression.operator.toLowerCase();
    requirements.push(labelRequirement(expression.key, operator === 'doesnotexist' ? '!' : operator, expression.values ?? []));
  }
  return requirements;
}

/** apimachinery's Requirement.Matches over a label set. */
export function requirementMatches(requirement: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const value = labels?.[requirement.key];
  const present = value !== undefined;
  switch (requirement.operator) {
    case 'in':
    case '=':
    case '==':
      return present && requirement.values.includes(value);
    case 'notin':
    case '!=':
      return !present || !requirement.values.includes(value);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present) return false;
      const have = parseInt64(value);
      const want = parseInt64(requirement.values[0] ?? '');
      if (have === undefined || want === undefined) return false;
      return requirement.operator === 'gt' ? have > want : have < want;
    }
  }
}

export function matchesRequirements(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  return requirements.every((r) => requirementMatches(r, labels));
}

/** The selector in the apiserver's `labelSelector` query syntax (for a live list instead of the cache). */
export function selectorString(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map(({ key, operator, values }) => {
      switch (operator) {
        case 'in':
        case 'notin':
          return `${key} ${operator} (${values.join(',')})`;
        case 'exists':
          return key;
        case '!':
          return `!${key}`;
        case 'gt':
          return `${key}>${values[0] ?? ''}`;
        case 'lt':
          return `${key}<${values[0] ?? ''}`;
        default:
          return `${key}${operator}${values[0] ?? ''}`;
      }
    })
    .join(',');
}
