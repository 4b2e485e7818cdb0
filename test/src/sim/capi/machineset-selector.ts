// metav1.LabelSelector as apimachinery's LabelSelectorAsSelector reads it: matchLabels are equality
// requirements, matchExpressions In/NotIn/Exists/DoesNotExist, all ANDed; an empty selector matches
// everything. `selectorString` prints it the way `selector.String()` does (requirements sorted by key),
// which is what a MachineSet or MachineDeployment publishes in `status.selector` for `kubectl scale`.
import type { LabelSelector } from '@metal3-ts/generated';
import { TerminalError } from '@metal3-ts/shared/reconcile/reconcile';

/**
 * A selector apimachinery would refuse (unknown operator, values where none are allowed, ...).
 * Terminal: a reconcile that meets one waits for the object to be edited instead of retrying.
 */
export class InvalidSelectorError extends TerminalError {
  override name = 'InvalidSelectorError';
}

type Labels = Readonly<Record<string, string>> | undefined;

interface Requirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | '=';
  readonly values: readonly string[];
}

function requirements(selector: Readonly<LabelSelector>): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) out.push({ key, operator: '=', values: [value] });
  for (const expression of selector.matchExpressions ?? []) {
    const { key, operator } = expression;
    const values = [...(expression.values ?? [])].sort();
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) throw new InvalidSelectorError(`${key}: operator ${operator} needs at least one value`);
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) throw new InvalidSelectorError(`${key}: operator ${operator} takes no values`);
        break;
      default:
        throw new InvalidSelectorError(`${key}: unknown operator ${String(operator)}`);
    }
    out.push({ key, operator, values });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function matches(requirement: Requirement, labels: Labels): boolean {
  const value = labels?.[requirement.key];
  switch (requirement.operator) {
    case '=':
    case 'In':
      return value !== undefined && requirement.values.includes(value);
    case 'NotIn':
      return value === undefined || !requirement.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

/** True when `labels` satisfy every requirement of `selector`. @throws InvalidSelectorError */
export function selectorMatches(selector: Readonly<LabelSelector>, labels: Labels): boolean {
  return requirements(selector).every((r) => matches(r, labels));
}

/** True when the selector has no requirement at all (it would match every object). */
export function isEmptySelector(selector: Readonly<LabelSelector> | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** `a=b,c in (x,y),!d,e`: apimachinery's string form. @throws InvalidSelectorError */
export function selectorString(selector: Readonly<LabelSelector>): string {
  return requirements(selector)
    .map((r) => {
      switch (r.operator) {
        case '=':
          return `${r.key}=${r.values[0] ?? ''}`;
        case 'In':
          return `${r.key} in (${r.values.join(',')})`;
        case 'NotIn':
          return `${r.key} notin (${r.values.join(',')})`;
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
      }
    })
    .join(',');
}
