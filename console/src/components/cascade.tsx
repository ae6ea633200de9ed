/**
 * A link's cascade (docs/api.md, "Share chains (extension)"): the figures of the link and of every
 * reshare below it, and the tree of reshares, a level at a time. Each level is one page of
 * stats/{svc_id}/chain.json's children, asked for when its node is opened.
 */
import { useState } from 'preact/hooks';
import { fetchChain, type ChainChild, type ChainResponse } from '../api/client';
import { href } from '../router';
import { Empty, ErrorNotice, Loading } from './ui';

/** Children asked for at a time. */
export const CHILDREN_PER_PAGE = 10;

/** Indentation stops growing here: deeper levels are told by their depth, not their margin. */
const MAX_INDENT = 8;

/** A level's indentation in the tree (a CSS length). */
function indent(level: number): string {
  return `${Math.min(level, MAX_INDENT) * 1.25}rem`;
}

/**
 * The share of all a link's clicks that its reshares earned: downstream / (own + downstream);
 * null when there is no click at all.
 */
export function earnedShare(own: number, downstream: number): number | null {
  const all = own + downstream;
  return all === 0 ? null : downstream / all;
}

/** A share as a percentage, one decimal at most ("73.3%"); a dash for none. */
export function percent(share: number | null): string {
  return share === null
    ? '—'
    : share.toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 1 });
}

/** The link of an answer as a node of its own tree (the link record gives what chain.json does not). */
export function rootNode(
  chain: ChainResponse,
  link: { channel?: string | null; sharer_id?: string | null; user_id?: string | null } | undefined,
): ChainChild {
  return {
    svc_id: chain.svc_id,
    channel: link?.channel ?? null,
    sharer_id: link?.sharer_id ?? null,
    user_id: link?.user_id ?? null,
    own: chain.own,
    downstream: chain.downstream,
  };
}

/** Where the link sits in its cascade, its own and downstream figures, and each generation's. */
export function CascadeSummary({ chain }: { chain: ChainResponse }) {
  const { own, downstream } = chain;
  const figures: [string, string][] = [
    ['Own clicks', own.clicks.toLocaleString()],
    ['Downstream clicks', downstream.clicks.toLocaleString()],
    ['Earned share of clicks', percent(earnedShare(own.clicks, downstream.clicks))],
    ['Downstream shares', downstream.shares.toLocaleString()],
    ['Sharers', downstream.sharers.toLocaleString()],
    ['Generations', downstream.generations.toLocaleString()],
  ];
  return (
    <>
      {chain.depth > 0 && (
        <p>
          Generation {chain.depth} of the cascade started by{' '}
          <a href={href(`/links/${encodeURIComponent(chain.root)}`)}>{chain.root}</a>.
        </p>
      )}
      <dl class="totals" aria-label="Cascade of the link, all time">
        {figures.map(([name, value]) => (
          <div key={name} data-total={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {chain.generations.length === 0 ? (
        <Empty>No reshare of this link yet.</Empty>
      ) : (
        <table class="data" aria-label="Generations below the link">
          <thead>
            <tr>
              <th scope="col">Generation</th>
              <th scope="col" class="num">
                Shares
              </th>
              <th scope="col" class="num">
                Clicks
              </th>
            </tr>
          </thead>
          <tbody>
            {chain.generations.map((g) => (
              <tr key={g.generation} data-generation={g.generation}>
                <th scope="row">{g.generation === 1 ? '1 (direct reshares)' : g.generation}</th>
                <td class="num">{g.shares.toLocaleString()}</td>
                <td class="num">{g.clicks.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

const COLUMNS: [
  figure: string,
  label: string,
  heading: string,
  value: (n: ChainChild) => string,
][] = [
  ['own-clicks', 'Own clicks', 'Own clicks', (n) => n.own.clicks.toLocaleString()],
  [
    'downstream-clicks',
    'Downstream clicks',
    'Down\u00ADstream clicks',
    (n) => n.downstream.clicks.toLocaleString(),
  ],
  [
    'earned-share',
    'Earned share',
    'Earned share',
    (n) => percent(earnedShare(n.own.clicks, n.downstream.clicks)),
  ],
  [
    'downstream-shares',
    'Downstream shares',
    'Down\u00ADstream shares',
    (n) => n.downstream.shares.toLocaleString(),
  ],
  ['sharers', 'Sharers', 'Sharers', (n) => n.downstream.sharers.toLocaleString()],
  ['generations', 'Generations', 'Generations', (n) => n.downstream.generations.toLocaleString()],
];

/**
 * The tree of reshares below a link: the link's row first, its direct reshares under it (from its
 * own answer), each opened on demand.
 */
export function CascadeTree({
  apiKey,
  chain,
  root,
}: {
  apiKey: string;
  chain: ChainResponse;
  root: ChainChild;
}) {
  return (
    <div class="table-wrap">
      <table class="data stats cascade" aria-label="Reshares of the link, a level at a time">
        <thead>
          <tr>
            <th scope="col">Link</th>
            {COLUMNS.map(([figure, , heading]) => (
              <th scope="col" class="num" key={figure}>
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <NodeRows apiKey={apiKey} node={root} level={0} first={chain} />
        </tbody>
      </table>
    </div>
  );
}

interface Level {
  children: ChainChild[];
  total: number;
  /** The last page loaded. */
  page: number;
}

/**
 * A node's row and, once opened, its children's rows and a way to the next page of them. Closing a
 * node hides its subtree without dropping it: opened again, it shows as it was, asking nothing.
 */
function NodeRows({
  apiKey,
  node,
  level,
  first,
  shown = true,
}: {
  apiKey: string;
  node: ChainChild;
  level: number;
  /** The node's own answer when the page has it already (the page's link): opened from the start. */
  first?: ChainResponse;
  /** False while an ancestor is closed. */
  shown?: boolean;
}) {
  const [open, setOpen] = useState(first !== undefined);
  const [loaded, setLoaded] = useState<Level | null>(
    // Asked for by page (never by offset): its page is the one asked for.
    first ? { children: first.children, total: first.total_results, page: first.page ?? 1 } : null,
  );
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const hasChildren = node.downstream.shares > 0 || node.downstream.generations > 0;
  const load = async (page: number) => {
    setPending(true);
    setError(null);
    try {
      const answer = await fetchChain(apiKey, node.svc_id, { page, per_page: CHILDREN_PER_PAGE });
      setLoaded((l) => ({
        children: [...(page === 1 ? [] : (l?.children ?? [])), ...answer.children],
        total: answer.total_results,
        page,
      }));
    } catch (e) {
      setError(e);
    } finally {
      setPending(false);
    }
  };
  const toggle = () => {
    if (!open && loaded === null) void load(1);
    setOpen(!open);
  };
  return (
    <>
      <tr
        data-svc-id={node.svc_id}
        data-level={level}
        aria-busy={pending}
        hidden={!shown}
        style={{ '--indent': indent(level) }}
      >
        <th scope="row" class="break">
          <div class="cascade-node">
            {hasChildren ? (
              <button type="button" class="toggle" aria-expanded={open} onClick={toggle}>
                <span aria-hidden="true">{open ? '▾' : '▸'}</span>
                <span class="visually-hidden">
                  {open ? 'Hide' : 'Show'} the reshares of {node.svc_id}
                </span>
              </button>
            ) : (
              <span class="toggle-space" aria-hidden="true" />
            )}
            <span>
              {level === 0 ? (
                <strong>{node.svc_id}</strong>
              ) : (
                <a href={href(`/links/${encodeURIComponent(node.svc_id)}`)}>{node.svc_id}</a>
              )}
              <small class="muted node-facts">
                {[
                  node.channel,
                  node.sharer_id ? `sharer ${node.sharer_id}` : null,
                  !node.sharer_id && node.user_id ? `user ${node.user_id}` : null,
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </small>
            </span>
          </div>
        </th>
        {COLUMNS.map(([figure, label, , value]) => (
          <td class="num" key={figure} data-figure={figure} data-label={label}>
            {value(node)}
          </td>
        ))}
      </tr>
      {shown && open && (error !== null || (pending && loaded === null)) && (
        <tr data-children-of={node.svc_id}>
          <td colSpan={COLUMNS.length + 1}>
            <div style={{ marginLeft: indent(level + 1) }}>
              <ErrorNotice error={error} />
              {pending && <Loading label={`Loading the reshares of ${node.svc_id}…`} />}
            </div>
          </td>
        </tr>
      )}
      {loaded?.children.map((child) => (
        <NodeRows
          key={child.svc_id}
          apiKey={apiKey}
          node={child}
          level={level + 1}
          shown={shown && open}
        />
      ))}
      {shown && open && loaded !== null && loaded.children.length < loaded.total && (
        <tr data-more-of={node.svc_id}>
          <td colSpan={COLUMNS.length + 1}>
            <div style={{ marginLeft: indent(level + 1) }}>
              <button
                type="button"
                class="secondary"
                disabled={pending}
                onClick={() => void load(loaded.page + 1)}
              >
                {pending ? 'Loading…' : 'Show more'}
                <span class="visually-hidden"> reshares of {node.svc_id}</span>
              </button>{' '}
              <span class="muted">
                {loaded.children.length} of {loaded.total} shown
              </span>
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
