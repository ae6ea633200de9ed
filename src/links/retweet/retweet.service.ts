import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/app-error';
import { RawParams, bool, single } from '../../common/params';
import { isHttpUrl } from '../../common/validators';
import type { KeyKind } from '../../projects/project-lookups.service';
import { ProjectEntity } from '../../projects/project.entity';
import { URL_MAX } from './destination';
import { LinkInput, readLinkInput } from '../link-input';
import { LinkParentsService } from '../link-parents.service';
import { LinkRecord } from '../link-record';
import { LinksService } from '../links.service';
import { requirePublishableHost } from './publishable-hosts';
import { TEXT_LINKS_MAX, TEXT_MAX, extractLinks, replaceLinks } from './text-links';
import { UnwrapService } from './unwrap.service';

export interface RetweetResult {
  svc_text: string;
  svc_urls: LinkRecord[];
}

/** The metadata parameters retweet and share accept besides tool, channel and url/text. */
function metadataInput(params: RawParams): LinkInput {
  if (single(params, 'path') !== undefined)
    throw Errors.invalid('path', 'is not usable on this endpoint');
  const input = readLinkInput({ ...params, url: undefined });
  delete input.url;
  return input;
}

@Injectable()
export class RetweetService {
  constructor(
    private readonly links: LinksService,
    private readonly parents: LinkParentsService,
    private readonly unwrapper: UnwrapService,
  ) {}

  /**
   * Every link in `text` becomes a new link of the project (unwrapped to its final destination
   * when asked); links of this service found in the text become parents unless make_parent=false.
   */
  async retweet(project: ProjectEntity, key: KeyKind, params: RawParams): Promise<RetweetResult> {
    const text = single(params, 'text', TEXT_MAX);
    if (text === undefined) throw Errors.missing('text');
    const input = metadataInput(params);
    if (input.tool === undefined) throw Errors.missing('tool');
    if (input.channel === undefined) throw Errors.missing('channel');
    const makeParent = bool(params, 'make_parent', true);
    const unwrap = bool(params, 'unwrap', false);
    const found = extractLinks(text);
    if (found.length > TEXT_LINKS_MAX) {
      throw Errors.invalid(
        'text',
        `holds ${found.length} links; one retweet makes at most ${TEXT_LINKS_MAX}`,
      );
    }
    if (found.length === 0) return { svc_text: text, svc_urls: [] };
    const urls = found.map((link) => link.url);
    if (key === 'publishable') for (const url of urls) requirePublishableHost(project, url, 'text');
    const parents =
      makeParent && input.parent === undefined
        ? await this.parents.candidates(project, urls)
        : new Map<string, string>();
    const destinations = unwrap
      ? await Promise.all(urls.map((url) => this.unwrapper.unwrap(url)))
      : urls;
    const inputs = urls.map((url, i) => ({
      ...input,
      url: destinations[i],
      parent: input.parent ?? parents.get(url),
    }));
    const records = await this.links.create(project, inputs, {
      requireChannel: true,
      implicitParents: makeParent,
    });
    return {
      svc_text: replaceLinks(
        text,
        found,
        records.map((r) => r.svc_url),
      ),
      svc_urls: records,
    };
  }

  /** share: one link for `url`, returned for the redirect to `destination`. */
  async share(project: ProjectEntity, key: KeyKind, params: RawParams): Promise<LinkRecord> {
    const url = single(params, 'url', URL_MAX);
    if (url !== undefined && !isHttpUrl(url))
      throw Errors.invalid('url', 'must be an absolute http(s) URL');
    if (key === 'publishable' && url !== undefined) requirePublishableHost(project, url, 'url');
    const [record] = await this.links.create(project, [{ ...metadataInput(params), url }], {
      requireChannel: true,
    });
    return record;
  }
}
