import { Admin1763884800000 } from './1763884800000-admin';
import { Links1763900000000 } from './1763900000000-links';
import { Clicks1763910000000 } from './1763910000000-clicks';
import { Stats1763920000000 } from './1763920000000-stats';
import { Conversions1763930000000 } from './1763930000000-conversions';
import { LinkTotals1763940000000 } from './1763940000000-link-totals';
import { ConversionRedirections1763950000000 } from './1763950000000-conversion-redirections';
import { LinksByUrl1763960000000 } from './1763960000000-links-by-url';
import { AnalyticsStore1763970000000 } from './1763970000000-analytics-store';
import { LinkControls1763990000000 } from './1763990000000-link-controls';
import { LinksList1764000000000 } from './1764000000000-links-list';
import { PublishableKeys1764010000000 } from './1764010000000-publishable-keys';
import { LinkChains1764020000000 } from './1764020000000-link-chains';
import { Webhooks1764030000000 } from './1764030000000-webhooks';
import { PendingJobs1764030000001 } from './1764030000001-pending-jobs';
import { WebhookDeliveryLog1764030000002 } from './1764030000002-webhook-delivery-log';
import { EventOutbox1764030000003 } from './1764030000003-event-outbox';
import { ConversionScopes1764040000000 } from './1764040000000-conversion-scopes';
import { WebhookFairness1764040000200 } from './1764040000200-webhook-fairness';
import { ChainMoves1764040000300 } from './1764040000300-chain-moves';
import { VisitorStorage1764040000500 } from './1764040000500-visitor-storage';
import { ImportedClicks1764040000700 } from './1764040000700-imported-clicks';
import { Erasures1764040001000 } from './1764040001000-erasures';
import { Retention1764040001100 } from './1764040001100-retention';
import { RetentionSweeps1764040001200 } from './1764040001200-retention-sweeps';

/** Every migration, in order. New migrations are appended here. */
export const MIGRATIONS = [
  Admin1763884800000,
  Links1763900000000,
  Clicks1763910000000,
  Stats1763920000000,
  Conversions1763930000000,
  LinkTotals1763940000000,
  ConversionRedirections1763950000000,
  LinksByUrl1763960000000,
  AnalyticsStore1763970000000,
  LinkControls1763990000000,
  LinksList1764000000000,
  PublishableKeys1764010000000,
  LinkChains1764020000000,
  Webhooks1764030000000,
  PendingJobs1764030000001,
  WebhookDeliveryLog1764030000002,
  EventOutbox1764030000003,
  ConversionScopes1764040000000,
  WebhookFairness1764040000200,
  ChainMoves1764040000300,
  VisitorStorage1764040000500,
  ImportedClicks1764040000700,
  Erasures1764040001000,
  Retention1764040001100,
  RetentionSweeps1764040001200,
];
