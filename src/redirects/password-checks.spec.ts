import {
  ADDRESS_ACTIVE,
  ADDRESS_WAITING,
  Admission,
  CHECKS_AT_ONCE,
  PROJECT_PENDING,
  PasswordChecks,
} from './password-checks';

/** A check the test finishes by hand, recording the order checks start in. */
function harness() {
  const checks = new PasswordChecks();
  const started: string[] = [];
  const finishers = new Map<string, (right: boolean) => void>();
  const submit = (name: string, address: string, project: string, alive = () => true) =>
    checks.submit(
      address,
      project,
      () =>
        new Promise<boolean>((resolve) => {
          started.push(name);
          finishers.set(name, resolve);
        }),
      alive,
    );
  const finish = async (name: string, right = false) => {
    finishers.get(name)!(right);
    finishers.delete(name);
    // Let the queue's continuations run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { checks, started, submit, finish };
}

const kinds = (admissions: Admission[]) => admissions.map((a) => a.kind);

describe('PasswordChecks', () => {
  it(`runs at most ${CHECKS_AT_ONCE} at once and ${ADDRESS_ACTIVE} per address`, async () => {
    const { checks, started, submit, finish } = harness();
    submit('a1', '198.51.100.1', 'A');
    submit('a2', '198.51.100.1', 'A');
    submit('a3', '198.51.100.1', 'A');
    for (let i = 1; i <= 4; i++) submit(`b${i}`, `198.51.100.${10 + i}`, 'A');
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(checks.load).toEqual({ running: 4, pending: 3 });
    await finish('a1');
    // a3 waited behind its address: it is ready again at the back of its project's queue.
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
    await finish('b1');
    await finish('b2');
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2', 'b3', 'b4', 'a3']);
  });

  it('takes the projects in turn: a burst at one project delays another by a turn, never refuses it', async () => {
    const { started, submit, finish } = harness();
    const burst = Array.from({ length: 40 }, (_, i) => submit(`a${i}`, `203.0.113.${i}`, 'A'));
    expect(kinds(burst).every((k) => k === 'queued')).toBe(true);
    const other = submit('b', '198.51.100.7', 'B');
    expect(other.kind).toBe('queued');
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
    // A's turn came before B arrived; then B's, before the 35 other checks of A.
    await finish('a0');
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    await finish('a1');
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b']);
    await finish('b', true);
    expect(other.kind === 'queued' && (await other.done)).toEqual({
      kind: 'checked',
      right: true,
    });
  });

  it(`refuses a project's check past ${PROJECT_PENDING} not yet running (that project only)`, () => {
    const { submit } = harness();
    const admitted = Array.from({ length: CHECKS_AT_ONCE + PROJECT_PENDING + 2 }, (_, i) =>
      submit(`a${i}`, `10.0.${Math.floor(i / 200)}.${i % 200}`, 'A'),
    );
    expect(kinds(admitted).filter((k) => k === 'queued')).toHaveLength(
      CHECKS_AT_ONCE + PROJECT_PENDING,
    );
    expect(kinds(admitted).slice(-2)).toEqual(['project-busy', 'project-busy']);
    expect(submit('b', '198.51.100.7', 'B').kind).toBe('queued');
  });

  it(`refuses an address's check past ${ADDRESS_ACTIVE} active and ${ADDRESS_WAITING} waiting`, () => {
    const { submit } = harness();
    const mine = Array.from({ length: ADDRESS_ACTIVE + ADDRESS_WAITING + 1 }, (_, i) =>
      submit(`a${i}`, '203.0.113.9', `P${i}`),
    );
    expect(kinds(mine).slice(-2)).toEqual(['queued', 'address-busy']);
    expect(submit('x', '203.0.113.10', 'P0').kind).toBe('queued');
  });

  it('skips the check of a visitor who left, and passes a failing check’s error on', async () => {
    const checks = new PasswordChecks();
    let gone = false;
    const order: string[] = [];
    const slow = Array.from({ length: CHECKS_AT_ONCE }, (_, i) => {
      let finish!: () => void;
      const admission = checks.submit(
        `10.0.0.${i}`,
        'A',
        () =>
          new Promise<boolean>((resolve) => {
            finish = () => resolve(false);
          }),
      );
      return { admission, finish: () => finish() };
    });
    const left = checks.submit(
      '10.0.1.1',
      'A',
      () => {
        order.push('left');
        return Promise.resolve(true);
      },
      () => !gone,
    );
    const failing = checks.submit('10.0.1.2', 'A', () => Promise.reject(new Error('scrypt')));
    const failed = expect(failing.kind === 'queued' && failing.done).rejects.toThrow('scrypt');
    gone = true;
    slow[0].finish();
    slow[1].finish();
    expect(left.kind === 'queued' && (await left.done)).toEqual({ kind: 'gone' });
    await failed;
    expect(order).toEqual([]);
    expect(checks.load).toEqual({ running: 2, pending: 0 });
  });
});
