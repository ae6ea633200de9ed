import { useEffect, useRef, useState } from 'preact/hooks';
import { geoRow, type GeoRow } from '../controls';
import { countryName } from '../dimensions';
import { Field } from './ui';

/** A control's text field with a button that clears it (shown while it has a value). */
export function TextInput(props: {
  id: string;
  label: string;
  type: 'datetime-local' | 'number' | 'url';
  hint?: string;
  /** Completes the clear button's name: "Clear the expiry time". */
  what: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <Field id={props.id} label={props.label} hint={props.hint}>
      <div class="input-row">
        <input
          id={props.id}
          ref={input}
          {...(props.type === 'number'
            ? { type: 'number', min: 1, step: 1 }
            : props.type === 'url'
              ? { type: 'url' }
              : { type: 'datetime-local' })}
          value={props.value}
          onInput={(e) => props.onChange(e.currentTarget.value)}
          aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        />
        {props.value !== '' && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              props.onChange('');
              input.current?.focus();
            }}
          >
            Clear<span class="visually-hidden"> {props.what}</span>
          </button>
        )}
      </div>
    </Field>
  );
}

/** The password: set a new one or remove it; the current one is never shown (the API keeps a hash). */
export function PasswordControl(props: {
  protected: boolean;
  value: string;
  removing: boolean;
  onChange: (value: string) => void;
  onRemove: (remove: boolean) => void;
}) {
  return (
    <div class="password">
      <p id="ctl-password-state">
        {!props.protected
          ? 'No password: anyone with the link gets through.'
          : props.removing
            ? 'The password is removed when you save.'
            : 'Visitors must give the password.'}
      </p>
      {!props.removing && (
        <Field
          id="ctl-password"
          label={props.protected ? 'New password' : 'Password'}
          hint="1 to 256 characters; not shown again once saved"
        >
          <input
            id="ctl-password"
            type="password"
            autocomplete="new-password"
            maxLength={256}
            value={props.value}
            onInput={(e) => props.onChange(e.currentTarget.value)}
            aria-describedby="ctl-password-state ctl-password-hint"
          />
        </Field>
      )}
      {props.protected && (
        <button type="button" class="secondary" onClick={() => props.onRemove(!props.removing)}>
          {props.removing ? 'Keep the password' : 'Remove the password'}
        </button>
      )}
    </div>
  );
}

/** The country rules (`geo`) as rows of a country code and a URL, added and removed. */
export function GeoRows({
  rows,
  onChange,
}: {
  rows: GeoRow[];
  onChange: (rows: GeoRow[]) => void;
}) {
  /** The row whose country field takes the focus once shown (a row just added). */
  const [focus, setFocus] = useState<number | null>(null);
  useEffect(() => {
    if (focus !== null) document.getElementById(`geo-country-${focus}`)?.focus();
  }, [focus]);
  const edit = (id: number, next: Partial<GeoRow>) =>
    onChange(rows.map((r) => (r.id === id ? { ...r, ...next } : r)));
  return (
    <fieldset class="geo">
      <legend>Country targets</legend>
      <p class="hint">A visitor’s country picks the target before the iOS and Android ones.</p>
      {rows.length > 0 && (
        <ul class="plain geo-rows">
          {rows.map((row, i) => {
            const code = row.country.trim();
            return (
              <li key={row.id} class="geo-row" data-geo-row={i + 1}>
                <div class="field geo-country">
                  <label for={`geo-country-${row.id}`}>
                    Country<span class="visually-hidden"> of rule {i + 1}</span>
                  </label>
                  <input
                    id={`geo-country-${row.id}`}
                    value={row.country}
                    maxLength={2}
                    autocapitalize="characters"
                    spellcheck={false}
                    onInput={(e) => edit(row.id, { country: e.currentTarget.value })}
                    aria-describedby={`geo-country-${row.id}-name`}
                  />
                  <small id={`geo-country-${row.id}-name`} class="hint">
                    {/^[A-Za-z]{2}$/.test(code) ? countryName(code) : 'Two letters, e.g. US'}
                  </small>
                </div>
                <div class="field geo-url">
                  <label for={`geo-url-${row.id}`}>
                    Goes to<span class="visually-hidden"> (rule {i + 1})</span>
                  </label>
                  <input
                    id={`geo-url-${row.id}`}
                    type="url"
                    value={row.url}
                    onInput={(e) => edit(row.id, { url: e.currentTarget.value })}
                  />
                </div>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => {
                    onChange(rows.filter((r) => r.id !== row.id));
                    document.getElementById('geo-add')?.focus();
                  }}
                >
                  Remove<span class="visually-hidden"> rule {i + 1}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="actions">
        <button
          type="button"
          id="geo-add"
          class="secondary"
          onClick={() => {
            const row = geoRow();
            onChange([...rows, row]);
            setFocus(row.id);
          }}
        >
          Add a country
        </button>
        {rows.length > 0 && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              onChange([]);
              document.getElementById('geo-add')?.focus();
            }}
          >
            Clear<span class="visually-hidden"> the country targets</span>
          </button>
        )}
      </div>
    </fieldset>
  );
}
