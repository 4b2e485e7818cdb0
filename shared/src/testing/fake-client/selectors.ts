// List and watch selectors as the apiserver parses them from a query string: label selectors in
// apimachinery's text syntax (`a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`) and
// the two field selectors every kind serves (`metadata.name`, `metadata.namespace`). A selector the
// apiserver would refuse throws SelectorError (answered 400), never matches silently.
import type { KubeObject } from '@metal3-ts/generated';

export class SelectorError extends Error {
  override name = 'SelectorError';
}

export type Matcher = (obj: Readonly<KubeObject>) => boolean;

/** Splits at commas outside parentheses. */
function clauses(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((c) => c.trim()).filter((c) => c !== '');
}

const keyRe = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valueRe = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function checked(kind: 'key' | 'value', text: string, selector: string): string {
  if (!(kind === 'key' ? keyRe : valueRe).test(text)) throw new SelectorError(`unable to parse requirement: invalid label ${kind} "${text}" in "${selector}"`);
  return text;
}

function labelClause(clause: string, selector: string): (labels: Readonly<Record<string, string>>) => boolean {
  const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(clause);
  if (set) {
    const key = checked('key', set[1] ?? '', selector);
    const values = new Set((set[3] ?? '').split(',').map((v) => checked('value', v.trim(), selector)));
    return set[2] === 'in' ? (l) => key in l && values.has(l[key] ?? '') : (l) => !(key in l) || !values.has(l[key] ?? '');
  }
  const op = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(clause);
  if (op) {
    const key = checked('key', op[1] ?? '', selector);
    const value = checked('value', op[3] ?? '', selector);
    return op[2] === '!=' ? (l) => l[key] !== value : (l) => key in l && l[key] === value;
  }
  if (clause.startsWith('!')) {
    const key = checked('key', clause.slice(1).trim(), selector);
    return (l) => !(key in l);
  }
  const key = checked('key', clause, selector);
  return (l) => key in l;
}

export function labelMatcher(selector: string | undefined): Matcher {
  if (!selector) return () => true;
  const tests = clauses(selector).map((c) => labelClause(c, selector));
  return (obj) => tests.every((t) => t(obj.metadata.labels ?? {}));
}

export function fieldMatcher(selector: string | undefined): Matcher {
  if (!selector) return () => true;
  const tests = clauses(selector).map((clause): Matcher => {
    const m = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(clause);
    if (!m) throw new SelectorError(`invalid field selector "${clause}"`);
    const field = m[1];
    if (field !== 'metadata.name' && field !== 'metadata.namespace') throw new SelectorError(`field label not supported: ${field}`);
    const read = (obj: Readonly<KubeObject>) => (field === 'metadata.name' ? obj.metadata.name : obj.metadata.namespace) ?? '';
    return m[2] === '!=' ? (obj) => read(obj) !== m[3] : (obj) => read(obj) === m[3];
  });
  return (obj) => tests.every((t) => t(obj));
}
