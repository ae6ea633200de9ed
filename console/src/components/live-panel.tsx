import { useEffect, useState } from 'preact/hooks';
import { fetchStreamToken, streamUrl } from '../api/live-feed';
import { displayValue } from '../dimensions';
import { href } from '../router';

/** A human click as the live feed tells it (docs/api.md, "Live feed": link.clicked). */
interface LiveClick {
  id: string;
  svcId: string;
  at: string;
  country: string | null;
  device: string | null;
  referrer: string | null;
}

/** The link.clicked body's fields the panel reads. */
interface ClickedEvent {
  id: string;
  created_at: string;
  data: {
    svc_id: string;
    click: { country: string | null; device: string | null; referrer_host: string | null };
  };
}

type Status = 'off' | 'connecting' | 'live' | 'reconnecting' | 'closed';

const STATUS_TEXT: Record<Status, string> = {
  off: 'Off: start it to see clicks as they happen.',
  connecting: 'Connecting…',
  live: 'Live: new clicks appear at the top.',
  reconnecting: 'Connection lost, reconnecting…',
  closed: 'The live feed is unavailable: start it again in a moment.',
};

/** The clicks the panel keeps, newest first. */
const KEPT = 50;
const REGIONAL_INDICATOR_A = 0x1f1e6;

/** A country's flag: its ISO 3166 alpha-2 code as two regional-indicator symbols ('' if none). */
export function countryFlag(code: string | null): string {
  if (!code || !/^[A-Za-z]{2}$/.test(code)) return '';
  return String.fromCodePoint(
    ...[...code.toUpperCase()].map((c) => REGIONAL_INDICATOR_A + c.charCodeAt(0) - 65),
  );
}

/** Reconnections after a stream was cut, each after twice the wait of the one before. */
const RECONNECTS = 5;
const FIRST_WAIT_MS = 1_000;

/**
 * The project's clicks as they happen, from the live feed (GET /events/stream, docs/api.md "Live
 * feed"); with `svcId`, that link's only. The feed opens when the reader starts it (an open stream
 * holds one of the project's 20 per instance) and closes when they stop it or leave the page.
 * The api_key never goes in a URL: each stream opens with a fresh single-use token (EventSource
 * sends no header). So EventSource's own reconnection, which would present a used token, is
 * replaced by the panel's: a new token, and `last_event_id` to resume where the stream was cut.
 */
export function LivePanel({ apiKey, svcId }: { apiKey: string; svcId?: string }) {
  const [on, setOn] = useState(false);
  /** Each start opens a new stream, also after the feed refused the last one. */
  const [starts, setStarts] = useState(0);
  const [status, setStatus] = useState<Status>('off');
  const [clicks, setClicks] = useState<LiveClick[]>([]);
  const [missed, setMissed] = useState(false);
  useEffect(() => {
    if (!on) {
      setStatus('off');
      return undefined;
    }
    setStatus('connecting');
    let stopped = false;
    let feed: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let lastEventId: string | null = null;
    /** Whether a stream of this start was ever live, and the reconnections since the last one. */
    let wasLive = false;
    let failures = 0;

    // A stream cut after it was live is opened again; one refused before any was (a wrong key,
    // too many streams), or too many reconnections in a row, leave the panel closed.
    const failed = () => {
      if (stopped) return;
      if (!wasLive || failures >= RECONNECTS) {
        setStatus('closed');
        return;
      }
      setStatus('reconnecting');
      retry = setTimeout(() => void connect(), FIRST_WAIT_MS * 2 ** failures);
      failures += 1;
    };

    const onClick = (message: MessageEvent<string>) => {
      lastEventId = message.lastEventId || lastEventId;
      const event = JSON.parse(message.data) as ClickedEvent;
      if (svcId !== undefined && event.data.svc_id !== svcId) return;
      const { click } = event.data;
      const seen: LiveClick = {
        id: event.id,
        svcId: event.data.svc_id,
        at: event.created_at,
        country: click.country,
        device: click.device,
        referrer: click.referrer_host,
      };
      setClicks((list) =>
        list.some((c) => c.id === seen.id) ? list : [seen, ...list].slice(0, KEPT),
      );
    };

    const connect = async () => {
      let token: string;
      try {
        token = await fetchStreamToken(apiKey);
      } catch {
        failed();
        return;
      }
      if (stopped) return;
      const source = new EventSource(streamUrl(token, lastEventId));
      feed = source;
      source.onopen = () => {
        wasLive = true;
        failures = 0;
        setStatus('live');
      };
      source.onerror = () => {
        source.close();
        failed();
      };
      source.addEventListener('reset', () => setMissed(true));
      source.addEventListener('link.clicked', onClick);
    };

    void connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      feed?.close();
    };
  }, [on, starts, apiKey, svcId]);
  const shown = status === 'closed' ? false : on;
  return (
    <section class="card live" aria-labelledby="live-title" data-live={status}>
      <div class="card-head">
        <h2 id="live-title">Live</h2>
        <button
          type="button"
          class={shown ? 'secondary' : undefined}
          onClick={() => {
            setMissed(false);
            setOn(!shown);
            if (!shown) setStarts((n) => n + 1);
          }}
        >
          {shown ? 'Stop live feed' : 'Start live feed'}
        </button>
      </div>
      <p role="status" class="muted">
        {STATUS_TEXT[status]}
        {missed && ' Some clicks were missed while the connection was down.'}
      </p>
      {clicks.length > 0 && (
        <div role="log" aria-label={svcId ? 'Live clicks of the link' : 'Live clicks'}>
          <ol class="live-clicks">
            {clicks.map((c) => (
              <li key={c.id} data-svc-id={c.svcId} data-country={c.country ?? ''}>
                <span class="flag" aria-hidden="true">
                  {countryFlag(c.country) || '🌐'}
                </span>
                <span>{displayValue('country', c.country)}</span>
                <span data-device>{displayValue('device', c.device)}</span>
                <span data-referrer>{displayValue('referrer_host', c.referrer)}</span>
                <time dateTime={c.at} class="muted">
                  {new Date(c.at).toLocaleTimeString()}
                </time>
                {!svcId && (
                  <a href={href(`/links/${encodeURIComponent(c.svcId)}`)} class="break">
                    {c.svcId}
                  </a>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
