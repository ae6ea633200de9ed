import { useState } from 'preact/hooks';
import { api, call, type LinkRecord } from '../api/client';
import { QrCode } from '../components/qr';
import { CopyButton, ErrorNotice, Field, field, useAction } from '../components/ui';
import { href } from '../router';
import { LinkList } from './link-list';
import { Batch, ChannelPicker, FindLink, TOOL, UpdatePost } from './link-tools';
import { projectKey } from './project';

/** The link metadata fields of the create form, in the API's names. */
const METADATA = [
  'campaign',
  'campaign_name',
  'campaign_description',
  'tag',
  'notes',
  'sharer_id',
  'user_id',
  'parent',
  'domain',
  'path',
] as const;
type Metadata = Partial<Record<(typeof METADATA)[number], string>>;

function metadataOf(form: FormData): Metadata {
  const out: Metadata = {};
  for (const name of METADATA) {
    const value = field(form, name);
    if (value !== '') out[name] = value;
  }
  return out;
}

/**
 * Links of the current project: the list (search, filters, sort, pages; each opens its link page),
 * then create one (copy, QR), many at once, update post information, find one.
 */
export function Links() {
  const [created, setCreated] = useState<LinkRecord | null>(null);
  /** Bumped by every creation: the list shows the new links. */
  const [version, setVersion] = useState(0);
  const listed = () => setVersion((v) => v + 1);
  const create = useAction(async (url: string, channel: string, metadata: Metadata) => {
    const link = await call(
      api.POST('/url.{format}', {
        params: {
          path: { format: 'json' },
          query: { v: '3', key: projectKey(), tool: TOOL, channel, url, ...metadata },
        },
      }),
    );
    setCreated(link);
    listed();
  });
  return (
    <section>
      <h1>Links</h1>
      <LinkList version={version} />
      <div class="columns">
        <form
          class="card"
          aria-labelledby="create-title"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            void create.run(field(form, 'url'), field(form, 'channel'), metadataOf(form));
          }}
        >
          <h2 id="create-title">Create a tracked link</h2>
          <Field id="link-url" label="Page to share (URL)">
            <input
              id="link-url"
              name="url"
              type="url"
              required
              placeholder="https://example.com/article"
            />
          </Field>
          <ChannelPicker id="link-channel" />
          <details>
            <summary>More: campaign, tag, notes, sharer, parent, domain and path</summary>
            <MetadataFields prefix="link" />
          </details>
          <ErrorNotice error={create.error} />
          <button type="submit" disabled={create.pending}>
            {create.pending ? 'Creating…' : 'Create link'}
          </button>
        </form>
        <div class="card" aria-live="polite">
          <h2>Short link</h2>
          {created ? (
            <CreatedLink link={created} />
          ) : (
            <p class="muted">The link you create appears here, with a QR code.</p>
          )}
        </div>
      </div>
      <Batch onCreated={listed} />
      <div class="columns">
        <UpdatePost initial={created?.svc_id ?? ''} />
        <FindLink />
      </div>
    </section>
  );
}

/** The optional metadata of a new link, each field named as the API names it. */
function MetadataFields({ prefix }: { prefix: string }) {
  const fields: [string, string, string?][] = [
    ['campaign', 'Campaign', 'Low-cardinality label, e.g. spring-sale'],
    [
      'campaign_name',
      'Campaign name',
      'Needed with a new campaign; default: the campaign as typed',
    ],
    ['campaign_description', 'Campaign description', 'Needed when the campaign is new'],
    ['tag', 'Tag'],
    ['notes', 'Notes', 'At most 256 characters'],
    ['sharer_id', 'Sharer (sharer_id of a project user)'],
    ['user_id', 'Your user id'],
    ['parent', 'Parent link (svc_id)'],
    ['domain', 'Custom domain', 'Default: the project’s default domain'],
    ['path', 'Custom path', 'Default: a random path'],
  ];
  return (
    <div class="grid">
      {fields.map(([name, label, hint]) => (
        <Field id={`${prefix}-${name}`} label={label} hint={hint} key={name}>
          <input
            id={`${prefix}-${name}`}
            name={name}
            maxLength={name === 'notes' ? 256 : undefined}
            aria-describedby={hint ? `${prefix}-${name}-hint` : undefined}
          />
        </Field>
      ))}
    </div>
  );
}

/** The link just created: copy it, scan it, open its page. */
function CreatedLink({ link }: { link: LinkRecord }) {
  return (
    <div class="created" data-created-link={link.svc_url}>
      <p class="short-url">
        <a href={link.svc_url} target="_blank" rel="noopener noreferrer" id="short-url">
          {link.svc_url}
        </a>{' '}
        <CopyButton text={link.svc_url} what="the short link" />
      </p>
      <dl class="facts">
        <dt>Goes to</dt>
        <dd class="break">{link.redirect_url}</dd>
        <dt>Channel</dt>
        <dd>
          {link.channel} ({link.service})
        </dd>
        {link.campaign && (
          <>
            <dt>Campaign</dt>
            <dd>{link.campaign}</dd>
          </>
        )}
      </dl>
      <QrCode text={link.svc_url} />
      <p>
        <a href={href(`/links/${encodeURIComponent(link.svc_id)}`)}>Statistics of this link</a>
      </p>
    </div>
  );
}
