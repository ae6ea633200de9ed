import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ClickBuffer } from './click-buffer';
import { ClickEvent, clickId, nextClickSequence } from './click-event';
import { ClickJournal, readJournal } from './click-journal';

/** The stage after the journal: takes the clicks and holds none (releases are made by hand here). */
const BUFFER = { take: () => undefined, nextHeld: async () => null } as unknown as ClickBuffer;

function clicks(count: number, referrer: string | null = null): ClickEvent[] {
  const at = Date.UTC(2026, 10, 25, 2, 0, 0);
  return Array.from({ length: count }, (_, i) => ({
    id: nextClickSequence(),
    linkId: String(100 + (i % 3)),
    projectId: '00000000-0000-0000-0000-00000000000' + String(1 + (i % 2)),
    clickedAt: at + i * 7,
    referrer,
    userAgent: i % 2 === 0 ? 'Mozilla/5.0 (X11; Linux x86_64)' : null,
    ip: i % 3 === 0 ? null : `192.0.2.${i % 3}`,
    isBot: i % 4 === 3,
  }));
}

/** What the journal gives back: every field, ids in full. */
const recovered = (list: ClickEvent[]) => list.map((c) => ({ ...c, id: clickId(c) }));

function journalDir(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'svc-journal-')), 'journal');
}

const files = (dir: string) => readdirSync(dir).sort();

describe('ClickJournal', () => {
  it('gives back every field of the clicks appended, ids in full, from one line per append', () => {
    const dir = journalDir();
    const journal = new ClickJournal(dir, BUFFER);
    // A few clicks go as rows, a larger turn packed.
    const first = clicks(5, 'https://r.example/a,b{c}\'d"e\tf');
    const second = clicks(2);
    const third = clicks(40, 'https://r.example/');
    journal.append(first);
    journal.append(second);
    journal.append(third);
    const [file] = files(dir);
    const text = readFileSync(path.join(dir, file), 'utf8');
    expect(text.split('\n').map((line) => line.slice(9, 11))).toEqual(['["', '["', '{"', '']);
    expect(readJournal(text)).toEqual({
      clicks: recovered([...first, ...second, ...third]),
      skipped: 0,
    });
    journal.close();
  });

  it('skips a record torn by the kill, and a damaged one, and reads the records after it', () => {
    const dir = journalDir();
    const journal = new ClickJournal(dir, BUFFER);
    const [a, b, c] = [clicks(3), clicks(4), clicks(2)];
    journal.append(a);
    journal.append(b);
    journal.append(c);
    const file = path.join(dir, files(dir)[0]);
    const lines = readFileSync(file, 'utf8').split('\n');
    // The middle record damaged (one character changed), the last one cut short.
    expect(lines[1]).toContain('"192.0.2.1"');
    lines[1] = lines[1].replace('"192.0.2.1"', '"192.0.2.9"');
    writeFileSync(file, lines.join('\n'));
    truncateSync(file, statSync(file).size - 10);
    expect(readJournal(readFileSync(file, 'utf8'))).toEqual({ clicks: recovered(a), skipped: 2 });
    // Zeros where the kernel had not written the page yet (a crash of the machine) are skipped too.
    expect(readJournal(`${'\0'.repeat(40)}\n${lines[0]}\n`)).toEqual({
      clicks: recovered(a),
      skipped: 1,
    });
    journal.close();
  });

  it('empties the open segment once all of its clicks are released, and deletes closed ones', () => {
    const dir = journalDir();
    // Segments of about one record: each append past the first opens a new one.
    const journal = new ClickJournal(dir, BUFFER, 100);
    journal.append(clicks(3)); // positions 0–2
    journal.append(clicks(2)); // 3–4, second segment
    journal.append(clicks(4)); // 5–8, third (open)
    expect(files(dir)).toHaveLength(3);
    expect(journal.unreleased).toBe(9);
    // Released out of order (jobs finish in any order), across segments.
    journal.release(2, 5);
    expect(files(dir)).toHaveLength(2);
    expect(journal.unreleased).toBe(6);
    journal.release(5, 9);
    const open = files(dir);
    expect(open).toHaveLength(2);
    expect(statSync(path.join(dir, open[1])).size).toBe(0);
    journal.release(0, 2);
    expect(files(dir)).toEqual([open[1]]);
    expect(journal.unreleased).toBe(0);
    // The emptied open segment takes the next clicks.
    const next = clicks(1);
    journal.append(next);
    expect(readJournal(readFileSync(path.join(dir, open[1]), 'utf8')).clicks).toEqual(
      recovered(next),
    );
    journal.close();
    // Closed with a click unreleased: that segment stays for the next start.
    expect(files(dir)).toEqual([open[1]]);
  });

  it('deletes every segment at close when all clicks were released', () => {
    const dir = journalDir();
    const journal = new ClickJournal(dir, BUFFER);
    journal.append(clicks(3));
    journal.release(0, 3);
    journal.append(clicks(1));
    journal.release(3, 4);
    journal.close();
    expect(files(dir)).toEqual([]);
  });

  it('takes over the segments of dead processes only, and once', async () => {
    const dir = journalDir();
    mkdirSync(dir, { recursive: true });
    const live = new ClickJournal(dir, BUFFER);
    const liveClicks = clicks(2);
    live.append(liveClicks);
    // A process that died (a pid above pid_max), and one that runs (pid 1).
    const dead = new ClickJournal(journalDir(), BUFFER);
    const deadClicks = clicks(3);
    dead.append(deadClicks);
    const deadFile = files(dead.dir)[0];
    writeFileSync(
      path.join(dir, `${2 ** 22 + 1}-0badc0de-0.journal`),
      readFileSync(path.join(dead.dir, deadFile)),
    );
    writeFileSync(
      path.join(dir, '1-0badc0de-0.journal'),
      readFileSync(path.join(dead.dir, deadFile)),
    );
    dead.close();
    // An application of this process that closed and left unreleased clicks behind.
    const closed = new ClickJournal(dir, BUFFER);
    const closedClicks = clicks(1);
    closed.append(closedClicks);
    closed.close();
    const closedFile = files(dir).find((f) => f.startsWith(closed.instance))!;

    const starting = new ClickJournal(dir, BUFFER);
    const got: ClickEvent[][] = [];
    const count = await starting.takeOver(async (list) => {
      got.push(list);
    });
    expect(count).toBe(4);
    expect(
      got
        .flat()
        .sort((x, y) => x.clickedAt - y.clickedAt || String(x.id).localeCompare(String(y.id))),
    ).toEqual(
      [...recovered(deadClicks), ...recovered(closedClicks)].sort(
        (x, y) => x.clickedAt - y.clickedAt || String(x.id).localeCompare(String(y.id)),
      ),
    );
    // The live journal's segment and pid 1's stay; the taken ones are gone.
    const left = files(dir);
    expect(left).toEqual(
      [files(dir).find((f) => f.startsWith(live.instance)), '1-0badc0de-0.journal'].sort(),
    );
    expect(left).not.toContain(closedFile);
    expect(await starting.takeOver(() => Promise.reject(new Error('nothing left to take')))).toBe(
      0,
    );
    live.close();
    starting.close();
  });

  it('leaves a segment whose recovery failed for the next start', async () => {
    const dir = journalDir();
    const dead = new ClickJournal(dir, BUFFER);
    dead.append(clicks(2));
    dead.close();
    const first = new ClickJournal(dir, BUFFER);
    await expect(first.takeOver(() => Promise.reject(new Error('disk full')))).rejects.toThrow(
      'disk full',
    );
    first.close();
    const next = new ClickJournal(dir, BUFFER);
    let count = 0;
    expect(await next.takeOver(async (list) => void (count += list.length))).toBe(2);
    expect(count).toBe(2);
    expect(files(dir)).toEqual([]);
    next.close();
  });
});
