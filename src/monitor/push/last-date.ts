/**
 * The last-verification date of push monitoring (monitoring.md §A.6): element
 * `lastMonitoringDateTime` of the XML in HOSTCONFIG.OTHERS, row of this host. Shared by the members
 * of a cluster (same host id, same database), so whoever pushes resumes from it.
 */
import type { HostConfig } from '../../model/host-config.js';
import { formatIsoLocal, parseIsoDate } from '../../model/iso-date.js';
import type { HostConfigRepository } from '../../store/index.js';

const ELEMENT = /<lastMonitoringDateTime>([\s\S]*?)<\/lastMonitoringDateTime>|<lastMonitoringDateTime\s*\/>/;

/** The date in an OTHERS value; undefined when absent or unparsable (= the whole history). */
export function lastDateIn(others: string): Date | undefined {
  const m = ELEMENT.exec(others);
  return m?.[1] === undefined ? undefined : parseIsoDate(m[1].trim());
}

/** OTHERS with the date set (element replaced, or added at the end of `root`). */
export function withLastDate(others: string, date: Date): string {
  const element = `<lastMonitoringDateTime>${formatIsoLocal(date)}</lastMonitoringDateTime>`;
  const text = others.trim();
  if (ELEMENT.test(text)) return text.replace(ELEMENT, element);
  if (/^<root\s*\/>$/.test(text) || text === '') return `<root>${element}</root>`;
  if (/<\/root\s*>$/.test(text)) return text.replace(/<\/root\s*>$/, `${element}</root>`);
  // Not the XML we expect: keep nothing of it rather than write a document the original cannot read.
  return `<root>${element}</root>`;
}

export class LastDateStore {
  constructor(private readonly repo: () => HostConfigRepository, private readonly hostId: string) {}

  async read(): Promise<Date | undefined> {
    const row = await this.repo().get(this.hostId);
    return row === undefined ? undefined : lastDateIn(row.others);
  }

  /** Writes the date; the row is created with empty business/roles/aliases when missing. */
  async write(date: Date): Promise<void> {
    const repo = this.repo();
    const row: HostConfig = (await repo.get(this.hostId)) ?? { hostId: this.hostId, business: '', roles: '', aliases: '', others: '', updatedInfo: 0 };
    await repo.upsert({ ...row, others: withLastDate(row.others, date) });
  }
}
