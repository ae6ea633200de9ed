import { useState } from 'preact/hooks';
import { api, call, type ProjectRecord, type Schemas } from '../api/client';
import { ErasurePanel } from '../components/erasure-panel';
import { ErrorNotice, Field, Loading, useAction } from '../components/ui';
import { href } from '../router';
import { adminKeys, useProject } from './admin';

type UpdateObject = Schemas['ProjectUpdateObjectDto'];
type Update = (json: UpdateObject) => Promise<void>;
/** ip_storage as the form holds it: '' is unset (null), the instance's default. */
type IpChoice = '' | NonNullable<ProjectRecord['ip_storage']>;
type UaChoice = NonNullable<ProjectRecord['ua_storage']>;

/** What each address setting keeps (docs/api.md, "Addresses"). */
const IP_CHOICES: [IpChoice, string, string][] = [
  [
    '',
    'Instance default',
    'Clicks keep the address as the instance’s CLICK_IP says (anonymised unless the operator set otherwise); conversion records keep the address they are given.',
  ],
  ['full', 'Full', 'Every click and conversion record keeps the visitor’s whole IP address.'],
  [
    'anonymised',
    'Anonymised',
    'Only the network is kept: an IPv4 address’s last octet zeroed (81.2.69.160 becomes 81.2.69.0), an IPv6 address’s first 48 bits.',
  ],
  ['none', 'None', 'No IP address is kept, neither in clicks nor in conversion records.'],
];
const UA_CHOICES: [UaChoice, string, string][] = [
  ['full', 'Full', 'The whole User-Agent header is kept (up to 2,048 characters).'],
  [
    'parsed',
    'Parsed',
    'Only the browser, operating system and device read from it are kept, not the user agent string.',
  ],
];
const MAX_RETENTION_DAYS = 36_500;

/**
 * A project's privacy (docs/api.md, "Addresses", "Retention", "Erasure"): how much of a visitor it
 * keeps, for how long, and the erasure of a person's data with its receipts. Administration keys:
 * project update and erase take them.
 */
export function Privacy({ apiKey }: { apiKey: string }) {
  const project = useProject(apiKey);
  const update = async (json: UpdateObject) => {
    await call(
      api.POST('/projects/{api_key}/update', {
        params: { path: { api_key: apiKey } },
        body: { ...adminKeys(), json: JSON.stringify(json) },
      }),
    );
    project.reload();
  };
  const name = project.data?.name ?? `${apiKey.slice(0, 8)}…`;
  return (
    <section>
      <p>
        <a href={href(`/projects/${apiKey}`)}>← Project {name}</a>
      </p>
      <h1>Privacy of {name}</h1>
      <p class="muted">
        What the project keeps of its visitors, for how long, and the erasure of a person’s data.
        Place, device, browser and operating system are read from the whole address and user agent
        before they are cut down: statistics count the same whatever these settings.
      </p>
      <ErrorNotice error={project.error} />
      {project.data ? (
        <div class="columns">
          <AddressStorage project={project.data} update={update} />
          <Retention project={project.data} update={update} />
        </div>
      ) : (
        !project.error && <Loading label="Loading the project…" />
      )}
      <ErasurePanel apiKey={apiKey} />
    </section>
  );
}

/** A group of radio buttons, each with the sentence that says what it means. */
function Choices<T extends string>(props: {
  name: string;
  legend: string;
  choices: [T, string, string][];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.choices.map(([value, label, sentence]) => {
        const id = `${props.name}-${value || 'default'}`;
        return (
          <div class="field checkbox" key={id}>
            <input
              id={id}
              type="radio"
              name={props.name}
              value={value}
              checked={props.value === value}
              onChange={() => props.onChange(value)}
              aria-describedby={`${id}-hint`}
            />
            <label for={id}>{label}</label>
            <small id={`${id}-hint`} class="hint">
              {sentence}
            </small>
          </div>
        );
      })}
    </fieldset>
  );
}

function AddressStorage({ project, update }: { project: ProjectRecord; update: Update }) {
  const [ip, setIp] = useState<IpChoice>(project.ip_storage ?? '');
  const [ua, setUa] = useState<UaChoice>(project.ua_storage ?? 'full');
  const [saved, setSaved] = useState(false);
  const action = useAction(async () => {
    setSaved(false);
    await update({ ip_storage: ip === '' ? null : ip, ua_storage: ua });
    setSaved(true);
  });
  return (
    <form
      class="card"
      aria-labelledby="addresses-title"
      data-ip-storage={project.ip_storage ?? ''}
      data-ua-storage={project.ua_storage ?? 'full'}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="addresses-title">Address storage</h2>
      <Choices
        name="ip_storage"
        legend="IP addresses"
        choices={IP_CHOICES}
        value={ip}
        onChange={(v) => {
          setIp(v);
          setSaved(false);
        }}
      />
      <Choices
        name="ua_storage"
        legend="User agents"
        choices={UA_CHOICES}
        value={ua}
        onChange={(v) => {
          setUa(v);
          setSaved(false);
        }}
      />
      <p class="muted">
        A change applies to the visits recorded from then on, in every copy (clicks, conversion
        records and their answers); what is stored already stays as it was. Webhooks, the live feed
        and the logs never carry an address or a user agent.
      </p>
      <ErrorNotice error={action.error} />
      {saved && (
        <p class="notice ok" role="status">
          Address storage saved.
        </p>
      )}
      <button type="submit" disabled={action.pending}>
        Save address storage
      </button>
    </form>
  );
}

function Retention({ project, update }: { project: ProjectRecord; update: Update }) {
  const current = project.retention_days ?? null;
  const [own, setOwn] = useState(current !== null);
  const [days, setDays] = useState(current === null ? '' : String(current));
  const [saved, setSaved] = useState(false);
  const action = useAction(async () => {
    setSaved(false);
    // The API checks the number (1 to 36500) and names json.retention_days when it is not one.
    await update({ retention_days: own ? Number(days) : null });
    setSaved(true);
  });
  const change = (next: () => void) => {
    next();
    setSaved(false);
  };
  return (
    <form
      class="card"
      aria-labelledby="retention-title"
      data-retention-days={current ?? ''}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="retention-title">Retention</h2>
      <fieldset class="choices">
        <legend>Raw clicks and conversions are kept</legend>
        <div class="field checkbox">
          <input
            id="retention-default"
            type="radio"
            name="retention"
            checked={!own}
            onChange={() => change(() => setOwn(false))}
            aria-describedby="retention-default-hint"
          />
          <label for="retention-default">Instance default</label>
          <small id="retention-default-hint" class="hint">
            As long as the instance’s RETENTION_DAYS says: forever when the operator has not set it.
          </small>
        </div>
        <div class="field checkbox">
          <input
            id="retention-own"
            type="radio"
            name="retention"
            checked={own}
            onChange={() => change(() => setOwn(true))}
            aria-describedby="retention-own-hint"
          />
          <label for="retention-own">For a number of days</label>
          <small id="retention-own-hint" class="hint">
            Older clicks and conversions are summed into hourly rollups, then their raw rows (with
            addresses, user agents and conversion records) are removed from both stores by a job
            every 10 minutes: statistics stay the same; exports hold only the days kept. Lengthening
            it later brings nothing back.
          </small>
        </div>
      </fieldset>
      <Field
        id="retention-days"
        label="Days kept"
        hint={`From 1 to ${MAX_RETENTION_DAYS.toLocaleString('en')} (100 years).`}
      >
        <input
          id="retention-days"
          type="number"
          min={1}
          max={MAX_RETENTION_DAYS}
          step={1}
          required={own}
          disabled={!own}
          value={days}
          onInput={(e) => change(() => setDays(e.currentTarget.value))}
          aria-describedby="retention-days-hint"
        />
      </Field>
      <ErrorNotice error={action.error} />
      {saved && (
        <p class="notice ok" role="status">
          Retention saved.
        </p>
      )}
      <button type="submit" disabled={action.pending}>
        Save retention
      </button>
    </form>
  );
}
