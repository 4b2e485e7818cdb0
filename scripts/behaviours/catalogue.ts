// docs/behaviours.md as data: the hand-written part (headings, intros, and per row the ID and its
// one-line meaning) is read back from the doc itself, and the generated part (where each ID is
// implemented, tested and mentioned; the summary at the end) is rewritten from the tree. So a
// person edits one file, and `render(parse(doc), where)` is the whole regeneration. Pure.
import { compareIds } from './ids.ts';

export interface Where {
  readonly implemented: readonly string[];
  readonly tested: readonly string[];
  readonly mentioned: readonly string[];
}

export interface Row {
  readonly id: string;
  readonly meaning: string;
}

/** A line of the doc: kept verbatim, or a catalogue row whose last three cells are generated. */
export type Line = { readonly text: string } | { readonly row: Row };

export const SUMMARY_START = '<!-- generated summary: node scripts/behaviours.ts rewrites it -->';
export const SUMMARY_END = '<!-- end of generated summary -->';

/** `M-12`, `§0.6`, or the first cell of a rendered row (`<a id="M-12"></a>M-12`). */
const ID_CELL = /^(?:<a id="[^"]*"><\/a>)?([A-Z][A-Z0-9]{0,3}-\d{1,3}|§\d{1,2}(?:\.\d{1,2})?)$/;

export function parse(doc: string): Line[] {
  const lines: Line[] = [];
  let inSummary = false;
  for (const text of doc.split('\n')) {
    if (text === SUMMARY_START) inSummary = true;
    if (inSummary) {
      if (text === SUMMARY_END) inSummary = false;
      continue; // regenerated wholesale
    }
    const row = parseRow(text);
    lines.push(row ? { row } : { text });
  }
  // The summary is appended after one blank line; the blank lines that led to it are dropped.
  while (isBlank(lines.at(-1))) lines.pop();
  return lines;
}

function isBlank(line: Line | undefined): boolean {
  return line !== undefined && 'text' in line && line.text === '';
}

function parseRow(text: string): Row | undefined {
  if (!text.startsWith('|')) return undefined;
  const cells = text.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
  const id = ID_CELL.exec(cells[0] ?? '')?.[1];
  return id === undefined ? undefined : { id, meaning: cells[1] ?? '' };
}

export function rows(lines: readonly Line[]): Row[] {
  return lines.flatMap((l) => ('row' in l ? [l.row] : []));
}

const NONE: Where = { implemented: [], tested: [], mentioned: [] };

export function render(lines: readonly Line[], where: ReadonlyMap<string, Where>): string {
  const out = lines.map((l) => ('row' in l ? renderRow(l.row, where.get(l.row.id) ?? NONE) : l.text));
  out.push('', SUMMARY_START, ...summary(rows(lines), where), SUMMARY_END, '');
  return out.join('\n');
}

export function anchorOf(id: string): string {
  return id.startsWith('§') ? `s${id.slice(1)}` : id;
}

function renderRow(row: Row, w: Where): string {
  const cells = [`<a id="${anchorOf(row.id)}"></a>${row.id}`, row.meaning, files(w.implemented), files(w.tested), files(w.mentioned)];
  return `| ${cells.join(' | ')} |`;
}

/** Links relative to docs/; the text drops the `controllers/` every controller path starts with. */
function files(paths: readonly string[]): string {
  if (paths.length === 0) return '—';
  return paths.map((p) => `[${p.replace(/^controllers\//, '')}](../${p})`).join(', ');
}

function summary(described: readonly Row[], where: ReadonlyMap<string, Where>): string[] {
  const used = described.filter((r) => where.has(r.id));
  const untested = used.filter((r) => where.get(r.id)!.implemented.length > 0 && where.get(r.id)!.tested.length === 0);
  const unreferenced = described.filter((r) => !where.has(r.id));
  const list = (rs: readonly Row[]) => (rs.length === 0 ? 'none' : rs.map((r) => r.id).sort(compareIds).map((id) => `[${id}](#${anchorOf(id)})`).join(', '));
  return [
    '',
    `${described.length} IDs described, ${used.length} of them referenced in the tree.`,
    '',
    `Implemented but named by no test title or test file (${untested.length}): ${list(untested)}.`,
    '',
    `Described but referenced nowhere yet (${unreferenced.length}): ${list(unreferenced)}.`,
    '',
  ];
}
