import { useState } from 'preact/hooks';
import { api, call, type LinkRecord } from '../api/client';
import { ControlBadges, dateTime, type Controlled } from '../components/control-badges';
import { GeoRows, PasswordControl, TextInput } from '../components/control-fields';
import { ErrorNotice, useAction } from '../components/ui';
import {
  changed,
  changesOf,
  formOf,
  type ControlForm,
  type PasswordChange,
  type TextControl,
} from '../controls';
import { browserTimeZone } from '../period';
import { TOOL } from './link-tools';
import { projectKey } from './project';

/**
 * A link's controls, shown and edited: expiry (time, clicks, where expired visits go), disabled,
 * password (set or removed, never shown), device and country targets. Saving posts the changed
 * controls only to url/update; the API's refusals show in the card.
 */
export function ControlsCard({
  link,
  clicks,
  onSaved,
}: {
  link: LinkRecord;
  clicks: number;
  onSaved: (link: LinkRecord) => void;
}) {
  const [record, setRecord] = useState<Controlled>(link);
  const [base, setBase] = useState(() => formOf(link));
  const [form, setForm] = useState(base);
  const [newPassword, setNewPassword] = useState('');
  const [removing, setRemoving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const password: PasswordChange = removing ? 'remove' : { set: newPassword };
  const set = (next: Partial<ControlForm>) => {
    setSaved(null);
    setForm((f) => ({ ...f, ...next }));
  };
  const save = useAction(async () => {
    const changes = changesOf(base, form, password);
    const updated = await call(
      api.POST('/url/update/{svc_id}.{format}', {
        params: {
          path: { svc_id: link.svc_id, format: 'json' },
          query: { v: '3', key: projectKey(), tool: TOOL, ...changes },
        },
      }),
    );
    const next = formOf(updated);
    setRecord(updated);
    setBase(next);
    setForm(next);
    setNewPassword('');
    setRemoving(false);
    setSaved(`Controls saved at ${new Date().toLocaleTimeString()}.`);
    onSaved(updated);
  });
  const dirty = changed(base, form, password);
  const text = (name: TextControl) => ({
    value: form[name],
    onChange: (value: string) => set({ [name]: value }),
  });
  return (
    <form
      class="card controls"
      aria-labelledby="controls-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <div class="card-head">
        <h2 id="controls-title">Controls</h2>
        <ControlBadges link={record} clicks={clicks} />
      </div>
      <p class="muted">
        Changes apply when you save; a cleared field removes its control. Times are in your time
        zone ({browserTimeZone()}).
      </p>
      <div class="control-groups">
        <fieldset>
          <legend>Expiry</legend>
          <TextInput
            id="ctl-expires-at"
            label="Expires at"
            type="datetime-local"
            hint={record.expires_at ? `Saved: ${dateTime(record.expires_at)}` : 'Empty: never'}
            what="the expiry time"
            {...text('expires_at')}
          />
          <TextInput
            id="ctl-max-clicks"
            label="Maximum clicks"
            type="number"
            hint={`Expires after this many human clicks; ${clicks.toLocaleString()} so far`}
            what="the maximum clicks"
            {...text('max_clicks')}
          />
          <TextInput
            id="ctl-expired-url"
            label="Once expired, go to"
            type="url"
            hint="Default: the domain’s not-found answer"
            what="the expired link’s URL"
            {...text('expired_url')}
          />
        </fieldset>
        <fieldset>
          <legend>Access</legend>
          <div class="field checkbox">
            <input
              id="ctl-disabled"
              type="checkbox"
              role="switch"
              checked={form.disabled}
              onChange={(e) => set({ disabled: e.currentTarget.checked })}
              aria-describedby="ctl-disabled-hint"
            />
            <label for="ctl-disabled">Disabled</label>
          </div>
          <p id="ctl-disabled-hint" class="hint">
            A disabled link answers as not found; its statistics stay.
          </p>
          <PasswordControl
            protected={record.password_protected === true}
            value={newPassword}
            removing={removing}
            onChange={(value) => {
              setSaved(null);
              setNewPassword(value);
            }}
            onRemove={(remove) => {
              setSaved(null);
              setRemoving(remove);
              setNewPassword('');
            }}
          />
        </fieldset>
        <fieldset>
          <legend>Targeting</legend>
          <TextInput
            id="ctl-ios-url"
            label="iOS visitors go to"
            type="url"
            hint="iPhone, iPad and iPod"
            what="the iOS URL"
            {...text('ios_url')}
          />
          <TextInput
            id="ctl-android-url"
            label="Android visitors go to"
            type="url"
            what="the Android URL"
            {...text('android_url')}
          />
          <GeoRows rows={form.geo} onChange={(geo) => set({ geo })} />
        </fieldset>
      </div>
      <ErrorNotice error={save.error} />
      {saved && (
        <p class="notice ok" role="status">
          {saved}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={!dirty || save.pending}>
          {save.pending ? 'Saving…' : 'Save controls'}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!dirty || save.pending}
          onClick={() => {
            setForm(base);
            setNewPassword('');
            setRemoving(false);
            save.setError(null);
          }}
        >
          Undo changes
        </button>
      </div>
    </form>
  );
}
