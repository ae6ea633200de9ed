import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { readFile, readdir, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { Logger } from '@nestjs/common';
import { ClickBuffer } from './click-buffer';
import {
  ClickEvent,
  PackedClicks,
  clickRowsJson,
  fromClickRows,
  packClicks,
  unpackClicks,
} from './click-event';

/** A segment is closed (and a new one opened) past this size; it is deleted once all its clicks are acknowledged. */
const SEGMENT_BYTES = 4 * 1024 * 1024;
/**
 * The open segment is emptied once all its clicks are released and it has grown past this share of
 * SEGMENT_BYTES: emptying it costs a system call (ftruncate), which a trickle of clicks
 * would otherwise pay on every one; clicks released but still in it are sent again after a crash,
 * which ingestion ignores.
 */
const EMPTY_SHARE = 1 / 64;

/** Turns of up to this many clicks are written as rows (clickRowsJson), larger ones packed (packClicks). */
const ROWS_UP_TO = 8;

/** The journals open in this process (tests run several applications in one process). */
const LIVE = new Set<string>();

/** `<pid>-<instance>-<n>.journal` (`r<n>` for a segment taken over from a dead process). */
const SEGMENT_NAME = /^(\d+)-([0-9a-f]+)-r?\d+\.journal$/;

interface Segment {
  file: string;
  /** Open while clicks are appended to it (the last segment); null once closed. */
  fd: number | null;
  /** The journal positions of its clicks: [first, end). */
  first: number;
  end: number;
  /** How many of them were acknowledged (handed to the queue for good, or spooled). */
  released: number;
  bytes: number;
}

/**
 * A process's click journal: every click, before its redirect is answered, is appended to a segment
 * file under DATA_DIR/journal with one `write` per event-loop turn (no fsync: the kernel's page cache
 * keeps what was written when the process dies; a crash of the machine is another matter). Clicks
 * are numbered by position; the buffer releases a range once the queue holds it for good, and a
 * segment whose clicks are all released is deleted (the open one emptied, once it has grown). What
 * a process that died left behind is taken over by the next one to start on the DATA_DIR (takeOver).
 *
 * The journal is the stage between the redirects' clicks (ClickRecorder) and the buffer before the
 * queue (ClickBuffer): every click appended is handed on to the buffer with its position, and the
 * buffer answers which positions the queue or the spool now holds for good (nextHeld); those are
 * released.
 *
 * A record is one line: the CRC-32 of its JSON (8 hex digits), a space, and the turn's clicks with
 * this process's random bits and each click's sequence number, so ids come out as the redirect made
 * them: packed as the queue carries them (packClicks), or, for a turn of a few clicks, as rows
 * (clickRowsJson, cheaper there). A line torn by the kill, or otherwise damaged, fails its checksum
 * and is skipped; the lines after it are read.
 */
export class ClickJournal {
  /** `<pid>-<random>`: segments of live journals are never taken over. */
  readonly instance = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly logger = new Logger('ClickJournal');
  private readonly segments: Segment[] = [];
  /** Clicks appended so far: the position of the next one. */
  private appended = 0;
  private sequence = 0;
  private failing = false;
  /** Releases what the buffer holds for good, until it stops. */
  private readonly releasing: Promise<void>;

  constructor(
    readonly dir: string,
    private readonly next: ClickBuffer,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {
    LIVE.add(this.instance);
    this.releasing = this.releaseHeld();
  }

  /**
   * At start, before the server listens: what dead processes left in the journal is handed on (to
   * be spooled and sent), then the buffer starts.
   */
  async start(): Promise<void> {
    try {
      const recovered = await this.takeOver((clicks) => this.next.recover(clicks));
      if (recovered > 0)
        this.logger.warn(`${recovered} clicks recovered from the journal of a process that died`);
    } catch (error) {
      this.logger.error({ err: error }, 'click journal recovery failed');
    }
    await this.next.start();
  }

  /** Hands every click on to the queue (ClickBuffer.flush). */
  flush(): Promise<void> {
    return this.next.flush();
  }

  /**
   * At shutdown, once no click comes in: the buffer flushes (or spills) everything and the queue
   * drains, what they hold is released, and the journal closes.
   */
  async stop(): Promise<void> {
    await this.next.stop();
    await this.releasing;
    this.close();
  }

  /** Clicks appended and not yet released (what a crash now would leave for the next start). */
  get unreleased(): number {
    return this.segments.reduce((n, s) => n + (s.end - s.first - s.released), 0);
  }

  /**
   * Appends the clicks as one record, synchronously, and hands them on to the buffer: the caller
   * answers their redirects after it. A write that fails is logged and the clicks stay in memory
   * only (the redirect is answered anyway).
   */
  append(clicks: ClickEvent[]): void {
    if (clicks.length === 0) return;
    const first = this.appended;
    this.appended += clicks.length;
    let segment: Segment | undefined;
    try {
      segment = this.openSegment(first);
      const json =
        clicks.length <= ROWS_UP_TO ? clickRowsJson(clicks) : JSON.stringify(packClicks(clicks));
      const line = `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
      const length = Buffer.byteLength(line);
      const written = writeSync(segment.fd!, line);
      segment.bytes += written;
      segment.end = this.appended;
      // A short write leaves a torn line: the next record starts a new segment rather than follow it.
      if (written !== length) throw new Error(`short write (${written} of ${length} bytes)`);
      if (this.failing) this.logger.log('click journal writes again');
      this.failing = false;
    } catch (error) {
      if (segment) this.closeSegment(segment);
      if (!this.failing)
        this.logger.error(
          { err: error },
          'click journal write failed: clicks are kept in memory only',
        );
      this.failing = true;
    }
    this.next.take(clicks, first);
  }

  /** The clicks at positions [from, to) are held elsewhere now: segments holding nothing else go. */
  release(from: number, to: number): void {
    for (let i = 0; i < this.segments.length; i++) {
      const segment = this.segments[i];
      const overlap = Math.min(to, segment.end) - Math.max(from, segment.first);
      if (overlap <= 0) continue;
      segment.released += overlap;
      if (segment.released < segment.end - segment.first) continue;
      if (
        segment.fd !== null &&
        (segment.bytes < this.segmentBytes * EMPTY_SHARE || this.truncate(segment))
      )
        continue;
      this.remove(segment);
      this.segments.splice(i--, 1);
    }
  }

  /**
   * At shutdown, once the buffer is flushed: closes the open segment and deletes every segment whose
   * clicks were all released; the others stay for the next start.
   */
  close(): void {
    for (const segment of this.segments) {
      if (segment.fd !== null) closeSync(segment.fd);
      segment.fd = null;
      if (segment.released >= segment.end - segment.first) this.remove(segment);
    }
    const kept = this.unreleased;
    if (kept > 0)
      this.logger.warn(
        `${kept} clicks not acknowledged at shutdown stay in the journal for the next start`,
      );
    this.segments.length = 0;
    LIVE.delete(this.instance);
  }

  /**
   * Takes over the segments of journals whose process is gone: each is claimed by renaming it (so two
   * processes starting at once never both take one), its clicks handed to `recover`, then deleted.
   * A segment claimed by a process that died in turn is taken over again by the next. Returns the
   * number of clicks recovered.
   */
  async takeOver(recover: (clicks: ClickEvent[]) => Promise<void>): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let recovered = 0;
    for (const name of names) {
      const match = SEGMENT_NAME.exec(name);
      if (!match || ownerAlive(Number(match[1]), `${match[1]}-${match[2]}`)) continue;
      const claimed = path.join(this.dir, `${this.instance}-r${this.sequence++}.journal`);
      try {
        await rename(path.join(this.dir, name), claimed);
      } catch {
        continue;
      }
      const { clicks, skipped } = readJournal(await readFile(claimed, 'utf8'));
      if (skipped > 0)
        this.logger.warn(
          `click journal ${name}: ${skipped} damaged records skipped (a write torn by the crash)`,
        );
      if (clicks.length > 0) await recover(clicks);
      await unlink(claimed);
      recovered += clicks.length;
    }
    return recovered;
  }

  /** Releases the positions the buffer reports held for good, until it has stopped. */
  private async releaseHeld(): Promise<void> {
    try {
      for (let held = await this.next.nextHeld(); held; held = await this.next.nextHeld())
        for (let i = 0; i < held.length; i += 2) this.release(held[i], held[i + 1]);
    } catch (error) {
      this.logger.error({ err: error }, 'click journal release failed');
    }
  }

  /** The segment to append to: the open one, or a new one (first use, past segmentBytes, after a failure). */
  private openSegment(first: number): Segment {
    const last = this.segments.at(-1);
    if (last && last.fd !== null && last.bytes < this.segmentBytes) return last;
    if (last) this.closeSegment(last);
    mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `${this.instance}-${this.sequence++}.journal`);
    const segment: Segment = {
      file,
      fd: openSync(file, 'a'),
      first,
      end: first,
      released: 0,
      bytes: 0,
    };
    this.segments.push(segment);
    return segment;
  }

  /** Empties the open segment, all of whose clicks were released; false if that failed (it is closed then). */
  private truncate(segment: Segment): boolean {
    try {
      ftruncateSync(segment.fd!, 0);
      segment.first = segment.end;
      segment.released = 0;
      segment.bytes = 0;
      return true;
    } catch (error) {
      this.logger.error({ err: error }, 'click journal truncation failed');
      try {
        closeSync(segment.fd!);
      } catch {
        // The segment is deleted next.
      }
      segment.fd = null;
      return false;
    }
  }

  private closeSegment(segment: Segment): void {
    if (segment.fd === null) return;
    try {
      closeSync(segment.fd);
    } catch {
      // Closing a descriptor of a failing disk: the segment is left as it is.
    }
    segment.fd = null;
    if (segment.released >= segment.end - segment.first) {
      this.remove(segment);
      this.segments.splice(this.segments.indexOf(segment), 1);
    }
  }

  private remove(segment: Segment): void {
    try {
      unlinkSync(segment.file);
    } catch (error) {
      // Replayed at the next start: harmless, ingestion is idempotent by click id.
      this.logger.warn({ err: error }, 'click journal segment not deleted');
    }
  }
}

/** The clicks of a journal segment's text, skipping lines that fail their checksum (torn or damaged). */
export function readJournal(text: string): { clicks: ClickEvent[]; skipped: number } {
  const clicks: ClickEvent[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const json = line.slice(9);
    if (!/^[0-9a-f]{8} /.test(line) || parseInt(line.slice(0, 8), 16) !== crc32(json)) {
      skipped++;
      continue;
    }
    try {
      const record = JSON.parse(json) as PackedClicks | unknown[];
      for (const click of Array.isArray(record) ? fromClickRows(record) : unpackClicks(record))
        clicks.push(click);
    } catch {
      skipped++;
    }
  }
  return { clicks, skipped };
}

/** Whether the journal `instance` of process `pid` may still be writing. */
function ownerAlive(pid: number, instance: string): boolean {
  // This process: a journal of an application still open here (a restart in a container reuses the pid).
  if (pid === process.pid) return LIVE.has(instance);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
