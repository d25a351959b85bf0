/** The migration's printed table: rows per table read, written, skipped and why; then the rest. */
import type { MigrationReport } from './migrate.js';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

export function formatMigrationReport(r: MigrationReport): string {
  const lines: string[] = [];
  lines.push(`${r.dryRun ? 'Dry run (nothing changed): ' : ''}host ${r.hostId}`);
  lines.push(`  from: ${r.source}`);
  lines.push(`  to:   ${r.target}`);
  lines.push('');
  const written = r.dryRun ? 'to write' : 'written';
  lines.push(`  ${pad('table', 16)}${pad('read', 9)}${pad(written, 9)}${pad('skipped', 9)}why`);
  for (const t of r.tables) {
    const reasons = [...t.skipped.entries()];
    const skipped = r.inPlace ? 0 : reasons.reduce((n, [, c]) => n + c, 0);
    const why = reasons.map(([reason, c]) => (r.inPlace || c === 0 ? reason : `${c}: ${reason}`)).join('; ');
    lines.push(`  ${pad(t.table, 16)}${pad(String(t.read), 9)}${pad(r.inPlace ? '-' : String(t.written), 9)}${pad(String(skipped), 9)}${why}`);
  }
  lines.push('');
  if (r.nextId !== undefined) lines.push(`  next transfer id: ${r.nextId} (above the sequence and every id this host allocated)`);
  if (r.inFlight > 0) lines.push(`  ${r.inFlight} transfer(s) of this host were running, interrupted or waiting: svc-r66 resumes them at start, from their saved rank`);
  for (const f of r.files) lines.push(`  ${f}`);
  lines.push('');
  if (r.ignored.length === 0) lines.push('Settings svc-r66 will not act on: none');
  else {
    lines.push('Settings svc-r66 will not act on:');
    for (const i of r.ignored) lines.push(`  ${i}`);
  }
  lines.push('');
  lines.push('Next:');
  for (const n of r.next) lines.push(`  ${n}`);
  return `${lines.join('\n')}\n`;
}
