import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { FLUSH_SIZE } from './click-buffer';
import { ClickEvent } from './click-event';
import { ClickJournal } from './click-journal';

/**
 * Where the redirects' clicks come in, and the first stage of their way to the analytics store
 * (docs/architecture.md, "How a click flows"): recorder → journal → buffer → queue → worker →
 * blocks → store. A redirect never waits for storage, but a crash must not lose the click of a
 * redirect already answered: each event-loop turn's clicks are appended to the journal in one write
 * (ClickJournal), and only then are their redirects answered.
 *
 * It also starts and stops the chain: at start (before the server listens) the journal takes over
 * what dead processes left; at shutdown (after the server stopped taking requests) every click goes
 * to the queue or the spool before anything closes.
 */
@Injectable()
export class ClickRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ClickRecorder');
  /** The clicks of this turn, not yet in the journal. */
  private turn: ClickEvent[] = [];
  /** The redirects waiting for this turn's journal write. */
  private answers: (() => void)[] = [];
  private turnEnding = false;

  constructor(private readonly journal: ClickJournal) {}

  /**
   * Takes a click; `answer` (its redirect's response) runs once the click is in the journal: at the
   * end of this event-loop turn, after one write of the turn's clicks. A turn that reaches a full
   * batch (FLUSH_SIZE) is journaled at once, so the batch goes out without waiting for the turn.
   */
  push(click: ClickEvent, answer?: () => void): void {
    this.turn.push(click);
    if (answer) this.answers.push(answer);
    if (!this.turnEnding) {
      this.turnEnding = true;
      setImmediate(this.endTurn);
    }
    if (this.turn.length >= FLUSH_SIZE) this.journalTurn();
  }

  /** Journals the clicks taken so far and hands every click on to the queue (ClickBuffer.flush). */
  async flush(): Promise<void> {
    this.journalTurn();
    await this.journal.flush();
  }

  /** What dead processes left in the journal goes out; the spool is sent once the queue answers. */
  async onApplicationBootstrap(): Promise<void> {
    await this.journal.start();
  }

  /**
   * Before any connection closes: this turn's clicks are journaled and answered, then every click
   * goes to the queue (and, in-process, is written) or to the spool, and the journal closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.endTurn();
    await this.journal.stop();
  }

  /** The turn's clicks go to the journal in one write; then their redirects are answered. */
  private readonly endTurn = (): void => {
    this.turnEnding = false;
    this.journalTurn();
    const answers = this.answers;
    this.answers = [];
    for (const answer of answers) {
      try {
        answer();
      } catch (error) {
        this.logger.error({ err: error }, 'answer after the click journal failed');
      }
    }
  };

  private journalTurn(): void {
    if (this.turn.length === 0) return;
    const clicks = this.turn;
    this.turn = [];
    this.journal.append(clicks);
  }
}
