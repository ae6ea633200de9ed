import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { webhookCreationObjectDtoEventsValues } from '../api/schema';
import {
  CopyButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  field,
  useAction,
  useAsync,
} from '../components/ui';
import { href } from '../router';
import { adminKeys, useProject } from './admin';

type Webhook = Schemas['WebhookRecordDto'];
type Delivery = Schemas['WebhookDeliveryDto'];
type EventType = Webhook['events'][number];
type Creation = Schemas['WebhookCreationObjectDto'];

/** What each event type sends (docs/api.md, "Webhooks and live events (extension)"). */
const EVENT_HINTS: Record<EventType, string> = {
  'link.created': 'a link is made (create, batch, static, retweet, share)',
  'link.updated': 'a link is changed',
  'link.clicked': 'a person clicks a link (bots left out)',
  'conversion.created': 'a goal is reached (pageviews only if asked below)',
};
const DISABLED_REASONS: Record<NonNullable<Webhook['disabled_reason']>, string> = {
  manual: 'disabled by hand',
  gone: 'disabled: the receiver answered 410 Gone',
  failing: 'disabled: failing for 3 days',
};
const DELIVERIES_PER_PAGE = 10;
/** How much of a receiver's answer a row of the delivery log shows (the whole of it in its title). */
const ANSWER_SHOWN = 60;

/**
 * A project's webhooks (docs/api.md, "Administration of webhooks"): create one with its events,
 * show and rotate its secret, send a test ping, read its delivery log and redeliver an event,
 * disable, enable and destroy it.
 */
export function Webhooks({ apiKey }: { apiKey: string }) {
  const project = useProject(apiKey);
  const list = useAsync(
    async () =>
      (await call(api.POST('/webhooks/list', { body: { ...adminKeys(), project: apiKey } })))
        .response.webhooks,
    [apiKey],
  );
  const name = project.data?.name ?? `${apiKey.slice(0, 8)}…`;
  return (
    <section>
      <p>
        <a href={href(`/projects/${apiKey}`)}>← Project {name}</a>
      </p>
      <h1>Webhooks of {name}</h1>
      <p class="muted">
        Each event of the project is sent to the webhook’s URL as a signed POST (Standard Webhooks)
        and retried for about a day until the receiver answers 2xx.
      </p>
      <ErrorNotice error={project.error} />
      <NewWebhook apiKey={apiKey} onCreated={list.reload} />
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? (
        <Loading label="Loading webhooks…" />
      ) : list.data?.length === 0 ? (
        <Empty>No webhook yet: the project’s events go nowhere.</Empty>
      ) : (
        list.data?.map((w) => <WebhookCard key={w.id} webhook={w} onChange={list.reload} />)
      )}
    </section>
  );
}

function NewWebhook({ apiKey, onCreated }: { apiKey: string; onCreated: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction(async (json: Creation) => {
    const answer = await call(
      api.POST('/webhooks/new', { body: { ...adminKeys(), json: JSON.stringify(json) } }),
    );
    setSecret(answer.response.webhook.secret);
    onCreated();
    return true;
  });
  return (
    <form
      class="card"
      aria-labelledby="new-webhook-title"
      onSubmit={(e) => {
        e.preventDefault();
        const formElement = e.currentTarget;
        const form = new FormData(formElement);
        const events = form.getAll('events').map(String) as EventType[];
        if (events.length === 0) {
          create.setError(new Error('Choose at least one event to send'));
          return;
        }
        const description = field(form, 'description');
        void create
          .run({
            project: apiKey,
            url: field(form, 'url'),
            events,
            ...(description ? { description } : {}),
            pageviews: form.get('pageviews') === 'on',
          })
          .then((ok) => ok && formElement.reset());
      }}
    >
      <h2 id="new-webhook-title">New webhook</h2>
      <div class="grid">
        <Field id="webhook-url" label="URL" hint="https, reachable from the internet">
          <input
            id="webhook-url"
            name="url"
            type="url"
            required
            placeholder="https://hooks.example.com/svc"
            aria-describedby="webhook-url-hint"
          />
        </Field>
        <Field id="webhook-description" label="Description (optional)">
          <input id="webhook-description" name="description" maxLength={500} />
        </Field>
      </div>
      <fieldset>
        <legend>Events</legend>
        {webhookCreationObjectDtoEventsValues.map((type) => (
          <div class="field checkbox" key={type}>
            <input
              type="checkbox"
              id={`webhook-event-${type}`}
              name="events"
              value={type}
              aria-describedby={`webhook-event-${type}-hint`}
            />
            <label for={`webhook-event-${type}`}>{type}</label>
            <small id={`webhook-event-${type}-hint`} class="hint">
              {EVENT_HINTS[type]}
            </small>
          </div>
        ))}
        <div class="field checkbox">
          <input type="checkbox" id="webhook-pageviews" name="pageviews" />
          <label for="webhook-pageviews">Pageviews too (as conversion.created)</label>
        </div>
      </fieldset>
      <ErrorNotice error={create.error} />
      {secret && (
        <p class="notice ok" role="status">
          Webhook created. Its signing secret: <code>{secret}</code>{' '}
          <CopyButton text={secret} what="the signing secret" />
        </p>
      )}
      <button type="submit" disabled={create.pending}>
        Create webhook
      </button>
    </form>
  );
}

function WebhookCard({ webhook, onChange }: { webhook: Webhook; onChange: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [test, setTest] = useState<Delivery | null>(null);
  const [showLog, setShowLog] = useState(false);
  const path = { params: { path: { id: webhook.id } } };
  const showSecret = useAction(async () => {
    const answer = await call(api.POST('/webhooks/{id}/show', { ...path, body: adminKeys() }));
    setSecret(answer.response.webhook.secret);
  });
  const rotate = useAction(async () => {
    const answer = await call(
      api.POST('/webhooks/{id}/rotate-secret', { ...path, body: adminKeys() }),
    );
    setSecret(answer.response.webhook.secret);
  });
  const sendTest = useAction(async () => {
    setTest(null);
    const answer = await call(api.POST('/webhooks/{id}/test', { ...path, body: adminKeys() }));
    setTest(answer.response.delivery);
  });
  const setEnabled = useAction(async (enabled: boolean) => {
    await call(
      api.POST('/webhooks/{id}/update', {
        ...path,
        body: { ...adminKeys(), json: JSON.stringify({ enabled }) },
      }),
    );
    onChange();
  });
  const destroy = useAction(async () => {
    await call(api.POST('/webhooks/{id}/destroy', { ...path, body: adminKeys() }));
    onChange();
  });
  const titleId = `webhook-${webhook.id}-title`;
  return (
    <article
      class="card"
      aria-labelledby={titleId}
      data-webhook={webhook.id}
      data-enabled={String(webhook.enabled)}
    >
      <div class="card-head">
        <h2 id={titleId} class="wrap">
          {webhook.url}
        </h2>
        <span class={webhook.enabled ? 'badge' : 'badge warn'}>
          {webhook.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </div>
      <dl class="facts">
        <dt>Events</dt>
        <dd>
          {webhook.events.join(', ')}
          {webhook.pageviews && ' (with pageviews)'}
        </dd>
        <dt>Description</dt>
        <dd>{webhook.description ?? '—'}</dd>
        <dt>Links</dt>
        <dd>{webhook.links ? webhook.links.join(', ') : 'every link'}</dd>
        <dt>Status</dt>
        <dd data-webhook-status>
          {webhook.disabled_reason ? DISABLED_REASONS[webhook.disabled_reason] : 'sending'}
          {webhook.failing_since && `; failing since ${webhook.failing_since}`}
        </dd>
        <dt>Created</dt>
        <dd>{webhook.created_at}</dd>
      </dl>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => void showSecret.run()}
          disabled={showSecret.pending}
        >
          Show secret
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => void rotate.run()}
          disabled={rotate.pending}
        >
          Rotate secret
        </button>
        <button type="button" onClick={() => void sendTest.run()} disabled={sendTest.pending}>
          Send test
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={showLog}
          aria-controls={`webhook-${webhook.id}-log`}
          onClick={() => setShowLog((s) => !s)}
        >
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => void setEnabled.run(!webhook.enabled)}
          disabled={setEnabled.pending}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        {!confirming && (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Destroy…
          </button>
        )}
      </div>
      <ErrorNotice
        error={
          showSecret.error ?? rotate.error ?? sendTest.error ?? setEnabled.error ?? destroy.error
        }
      />
      {secret && (
        <p class="secret">
          Signing secret: <code>{secret}</code>{' '}
          <CopyButton text={secret} what="the signing secret" />
          <span class="muted"> After a rotation the previous one also signs for 24 hours.</span>
        </p>
      )}
      <p role="status" class="test-result">
        {sendTest.pending ? 'Sending a test ping…' : test && <TestResult delivery={test} />}
      </p>
      {confirming && (
        <div
          class="confirm"
          role="group"
          aria-label={`Confirm destroying the webhook ${webhook.url}`}
        >
          <p>Destroy this webhook? Its delivery log goes with it.</p>
          <button
            type="button"
            class="danger"
            onClick={() => void destroy.run()}
            disabled={destroy.pending}
          >
            Destroy webhook
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {showLog && <DeliveryLog webhookId={webhook.id} />}
    </article>
  );
}

/** The test ping's attempt: the receiver's status (2xx accepted), or why none came. */
function TestResult({ delivery }: { delivery: Delivery }) {
  const status = delivery.status_code;
  const ok = status !== null && status < 300;
  return (
    <span class={ok ? 'ok' : 'failed'} data-test-status={status ?? 'none'}>
      {status === null
        ? `Test ping failed: ${delivery.error ?? 'no answer'} (after ${delivery.duration_ms} ms)`
        : `Test ping: ${status} in ${delivery.duration_ms} ms${ok ? '' : ', not accepted'}`}
    </span>
  );
}

/** The webhook's delivery log, newest first, a page at a time, with a Redeliver button per event. */
function DeliveryLog({ webhookId }: { webhookId: string }) {
  const [page, setPage] = useState(1);
  const [queued, setQueued] = useState<string | null>(null);
  const path = { params: { path: { id: webhookId } } };
  const log = useAsync(
    async () =>
      (
        await call(
          api.POST('/webhooks/{id}/deliveries', {
            ...path,
            body: { ...adminKeys(), page: String(page), per_page: String(DELIVERIES_PER_PAGE) },
          }),
        )
      ).response,
    [webhookId, page],
  );
  const redeliver = useAction(async (eventId: string) => {
    setQueued(null);
    await call(
      api.POST('/webhooks/{id}/redeliver', {
        ...path,
        body: { ...adminKeys(), json: JSON.stringify({ event_id: eventId }) },
      }),
    );
    setQueued(eventId);
  });
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total_results / DELIVERIES_PER_PAGE)) : 1;
  const captionId = `webhook-${webhookId}-log-title`;
  return (
    <section id={`webhook-${webhookId}-log`} aria-labelledby={captionId} class="deliveries">
      <div class="card-head">
        <h3 id={captionId}>Deliveries</h3>
        <button type="button" class="secondary" onClick={log.reload} disabled={log.loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={log.error ?? redeliver.error} />
      <p role="status" class="muted">
        {queued && `Event ${queued} queued again, with the same webhook-id.`}
      </p>
      {!log.data ? (
        !log.error && <Loading label="Loading deliveries…" />
      ) : log.data.deliveries.length === 0 ? (
        <Empty>Nothing delivered yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="data" aria-labelledby={captionId} aria-busy={log.loading}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">
                  Attempt
                </th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Duration
                </th>
                <th scope="col">Next retry</th>
                <th scope="col">Answer</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.deliveries.map((d) => (
                <tr key={d.id} data-event-id={d.event_id} data-status={d.status_code ?? 'none'}>
                  <td>
                    <code class="break">{d.event_id}</code>
                    <br />
                    <span class="muted">{d.created_at}</span>
                  </td>
                  <td>{d.event_type}</td>
                  <td class="num">{d.attempt}</td>
                  <td>
                    {d.status_code !== null ? (
                      <span class={d.status_code < 300 ? 'badge' : 'badge warn'}>
                        {d.status_code}
                      </span>
                    ) : (
                      <span class="badge warn">{d.error ?? 'no answer'}</span>
                    )}
                  </td>
                  <td class="num">{d.duration_ms} ms</td>
                  <td>{d.next_retry_at ?? '—'}</td>
                  <td class="break" title={d.response}>
                    {d.response.length > ANSWER_SHOWN
                      ? `${d.response.slice(0, ANSWER_SHOWN)}…`
                      : d.response || '—'}
                  </td>
                  <td>
                    {/* A test ping is not kept as an event: there is nothing to send again. */}
                    {d.event_type !== 'ping' && (
                      <button
                        type="button"
                        onClick={() => void redeliver.run(d.event_id)}
                        disabled={redeliver.pending}
                        aria-label={`Redeliver ${d.event_type} ${d.event_id}`}
                      >
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Pages of the delivery log">
          <button
            type="button"
            class="secondary"
            disabled={page <= 1 || log.loading}
            onClick={() => setPage((p) => p - 1)}
          >
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={page >= pages || log.loading}
            onClick={() => setPage((p) => p + 1)}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
