import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClickEvent, clickId } from './click-event';

/**
 * Clicks on disk under DATA_DIR/spool while the queue cannot take them: files of one JSON line per
 * click (`.ndjson`), each click with its id in full (the next process makes other ids from the same
 * sequence numbers). A file is claimed by renaming it to `<file>.<pid>.sending` before it is sent,
 * so two processes never send one file; a claim whose process is gone is made a file again at the
 * next start and sent again (ingestion is idempotent).
 */
@Injectable()
export class ClickSpool {
  readonly dir: string;

  constructor(config: AppConfig) {
    this.dir = path.join(config.dataDir, 'spool');
  }

  /** Appends clicks to this process's spool file. */
  async spill(clicks: ClickEvent[]): Promise<void> {
    if (clicks.length === 0) return;
    await mkdir(this.dir, { recursive: true });
    await appendFile(path.join(this.dir, `clicks-${process.pid}.ndjson`), lines(clicks), 'utf8');
  }

  /**
   * Clicks recovered from a dead process's journal, as a spool file of their own: written whole
   * under another name first, so that a drain never reads half of it.
   */
  async save(clicks: ClickEvent[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `journal-${process.pid}-${randomUUID()}`);
    await writeFile(`${file}.tmp`, lines(clicks), 'utf8');
    await rename(`${file}.tmp`, `${file}.ndjson`);
  }

  /**
   * Makes the claims of runs that died while sending them files to send again (they may have sent
   * part of them), and says whether any file waits to be sent.
   */
  async reclaim(): Promise<boolean> {
    for (const name of (await readdir(this.dir)).filter(isOrphanedClaim)) {
      await rename(
        path.join(this.dir, name),
        path.join(this.dir, name.replace(/\.sending$/, '.ndjson')),
      );
    }
    return (await this.files()).length > 0;
  }

  /** The files waiting to be sent (rejects when there is no spool folder). */
  async files(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => name.endsWith('.ndjson'));
  }

  /** Claims a file for this process: the claimed file's path, or null when another took it. */
  async claim(name: string): Promise<string | null> {
    const claimed = path.join(this.dir, `${name}.${process.pid}.sending`);
    try {
      await rename(path.join(this.dir, name), claimed);
      return claimed;
    } catch {
      return null;
    }
  }

  /** The clicks of a claimed file. */
  async read(claimed: string): Promise<ClickEvent[]> {
    return (await readFile(claimed, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => fromSpool(JSON.parse(line) as SpooledClick));
  }

  /** Gives a claimed file back, to be sent later. */
  async unclaim(claimed: string, name: string): Promise<void> {
    await rename(claimed, path.join(this.dir, name)).catch(() => undefined);
  }

  /** Deletes a claimed file, all of whose clicks are held elsewhere now. */
  async remove(claimed: string): Promise<void> {
    await unlink(claimed).catch(() => undefined);
  }
}

function lines(clicks: ClickEvent[]): string {
  return clicks.map((c) => JSON.stringify({ ...c, id: clickId(c) })).join('\n') + '\n';
}

/**
 * A spooled click. The first released version wrote its time as an ISO 8601 string; an
 * installation upgraded from it may still hold such files.
 */
type SpooledClick = ClickEvent | (Omit<ClickEvent, 'clickedAt'> & { clickedAt: string });

function fromSpool(click: SpooledClick): ClickEvent {
  return typeof click.clickedAt === 'string'
    ? { ...click, clickedAt: Date.parse(click.clickedAt) }
    : (click as ClickEvent);
}

/** `<file>.<pid>.sending` of a process that is gone, or of an earlier run with this pid (containers). */
function isOrphanedClaim(name: string): boolean {
  const pid = /\.(\d+)\.sending$/.exec(name)?.[1];
  if (pid === undefined) return false;
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
