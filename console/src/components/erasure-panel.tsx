import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { erasureRecordDtoByValues } from '../api/schema';
import { adminKeys } from '../pages/admin';
import { ErasureList, rowsOf } from './erasure-list';
import { CopyButton, ErrorNotice, Field, useAction } from './ui';

export type Erasure = Schemas['ErasureRecordDto'];
export type ErasureKind = Erasure['by'];

/** Each identifier an erasure takes (docs/api.md, "Erasure"): whose data, and what goes. */
export const KINDS: Record<ErasureKind, { label: string; hint: string; placeholder: string }> = {
  session_id: {
    label: 'A visitor, by session id',
    hint: 'The session id of their conversion records (the tracking script’s _svcsession cookie). Their records’ and clicks’ address, user agent, referrer and page go.',
    placeholder: 'c2f9e1b04d6a',
  },
  clicker_id: {
    label: 'A visitor, by clicker id',
    hint: 'The clicker_id given with their conversions. Their records’ and clicks’ address, user agent, referrer and page go.',
    placeholder: 'clicker-42',
  },
  ip: {
    label: 'A visitor, by IP address',
    hint: 'IPv4 or IPv6. An anonymised address stands for every visitor of its /24 (/48): all of theirs go.',
    placeholder: '81.2.69.160',
  },
  sharer_id: {
    label: 'A sharer, by sharer id',
    hint: 'A user id (a UUID). Their identity on the project’s links is blanked, and every visitor field of those links’ clicks and conversions.',
    placeholder: '00000000-0000-4000-8000-000000000000',
  },
  user_id: {
    label: 'A sharer, by user id',
    hint: 'The user_id their links were made with. Their identity on those links is blanked, and every visitor field of their clicks and conversions.',
    placeholder: 'user-42',
  },
};

/**
 * Erasure of a person's data (docs/api.md, "Erasure"): the kind of identifier, its value, a
 * confirmation, then the receipt the API answers; below, the project's past erasures. The value
 * typed is cleared once erased: the page keeps no more of the person than the audit does.
 */
export function ErasurePanel({ apiKey }: { apiKey: string }) {
  const [kind, setKind] = useState<ErasureKind>('session_id');
  const [value, setValue] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [receipt, setReceipt] = useState<Erasure | null>(null);
  const [listVersion, setListVersion] = useState(0);
  const erase = useAction(async () => {
    const answer = await call(
      api.POST('/projects/{api_key}/erase', {
        params: { path: { api_key: apiKey } },
        body: { ...adminKeys(), json: JSON.stringify({ [kind]: value.trim() }) },
      }),
    );
    setReceipt(answer.response.erasure);
    setValue('');
    setListVersion((v) => v + 1);
  });
  const confirm = async () => {
    await erase.run();
    setConfirming(false);
  };
  const spec = KINDS[kind];
  return (
    <>
      <form
        class="card danger erase"
        aria-labelledby="erase-title"
        onSubmit={(e) => {
          e.preventDefault();
          erase.setError(null);
          setReceipt(null);
          setConfirming(true);
        }}
      >
        <h2 id="erase-title">Erase a person’s data</h2>
        <p>
          Blanks their personal fields in both stores before it answers; every click and conversion
          stays, with its link, time, value, place and device, so counts and statistics do not
          change. It cannot be undone.
        </p>
        <div class="grid">
          <Field id="erase-kind" label="Whose data">
            <select
              id="erase-kind"
              value={kind}
              disabled={confirming}
              onChange={(e) => {
                setKind(e.currentTarget.value as ErasureKind);
                erase.setError(null);
              }}
              aria-describedby="erase-kind-hint"
            >
              {erasureRecordDtoByValues.map((k) => (
                <option key={k} value={k}>
                  {KINDS[k].label}
                </option>
              ))}
            </select>
            <small id="erase-kind-hint" class="hint">
              {spec.hint}
            </small>
          </Field>
          <Field id="erase-value" label={`Identifier (${kind})`}>
            <input
              id="erase-value"
              required
              autoComplete="off"
              spellcheck={false}
              placeholder={spec.placeholder}
              value={value}
              readOnly={confirming}
              onInput={(e) => setValue(e.currentTarget.value)}
            />
          </Field>
        </div>
        {!confirming && <button type="submit">Erase…</button>}
        {confirming && (
          <Confirmation
            kind={kind}
            value={value.trim()}
            pending={erase.pending}
            onConfirm={() => void confirm()}
            onCancel={() => setConfirming(false)}
          />
        )}
        <ErrorNotice error={erase.error} />
      </form>
      {receipt && <Receipt erasure={receipt} />}
      {/* A new erasure: the list loads again from its first page. */}
      <ErasureList key={listVersion} apiKey={apiKey} />
    </>
  );
}

function Confirmation(props: {
  kind: ErasureKind;
  value: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const sharer = props.kind === 'sharer_id' || props.kind === 'user_id';
  return (
    <div
      class="notice confirm"
      role="group"
      aria-labelledby="erase-confirm-title"
      tabIndex={-1}
      ref={ref}
    >
      <p id="erase-confirm-title">
        <strong>
          Erase the {sharer ? 'sharer' : 'visitor'} with {props.kind} <code>{props.value}</code>?
        </strong>{' '}
        Their personal fields are blanked in PostgreSQL and the analytics store for good.
      </p>
      <button type="button" class="danger" disabled={props.pending} onClick={props.onConfirm}>
        {props.pending ? 'Erasing…' : 'Erase now'}
      </button>{' '}
      <button type="button" class="secondary" disabled={props.pending} onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

const STORES: ['postgresql' | 'analytics', string][] = [
  ['postgresql', 'PostgreSQL'],
  ['analytics', 'Analytics store'],
];

/** The receipt of an erasure: its id, what it named, when, and the rows changed per store. */
function Receipt({ erasure }: { erasure: Erasure }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [erasure.id]);
  const total = STORES.reduce((sum, [store]) => sum + rowsOf(erasure.rows[store]), 0);
  return (
    <section
      class="card receipt"
      aria-labelledby="receipt-title"
      data-erasure-id={erasure.id}
      tabIndex={-1}
      ref={ref}
    >
      <h2 id="receipt-title">Receipt</h2>
      <p class="notice ok" role="status">
        {total === 0
          ? 'Nothing left to erase: no row held this identifier’s data.'
          : `Erased: ${total} ${total === 1 ? 'row' : 'rows'} changed in both stores${
              erasure.complete ? ', complete at this answer.' : ' so far.'
            }`}
      </p>
      <dl class="facts">
        <dt>Erasure id</dt>
        <dd>
          <code data-receipt="id">{erasure.id}</code>{' '}
          <CopyButton text={erasure.id} what="the erasure id" />
        </dd>
        <dt>Erased by</dt>
        <dd data-receipt="by">{erasure.by}</dd>
        <dt>Erased at</dt>
        <dd data-receipt="erased_at">{erasure.erased_at} UTC</dd>
        <dt>Complete</dt>
        <dd data-receipt="complete">
          {erasure.complete
            ? 'yes'
            : 'no: more than 10,000 records or links matched; erase again for the next ones'}
        </dd>
      </dl>
      <div class="table-wrap">
        <table class="data" aria-label="Rows changed per store and table">
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col">Table</th>
              <th scope="col" class="num">
                Rows
              </th>
            </tr>
          </thead>
          <tbody>
            {STORES.flatMap(([store, label]) =>
              Object.entries(erasure.rows[store]).map(([table, rows]) => (
                <tr key={`${store}.${table}`} data-store={store} data-table={table}>
                  <td>{label}</td>
                  <th scope="row">{table}</th>
                  <td class="num">{rows}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
      <p class="muted">
        The audit keeps this receipt, never the identifier. The same erasure again changes nothing
        and answers zeros.
      </p>
    </section>
  );
}
