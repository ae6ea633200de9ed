import { OutgoingEvent, eventId } from './project-event';

/** What conversion.created needs of a conversion record (conversions/new's ConversionRecord). */
interface ConversionFields {
  id: string;
  ip_address: string | null;
  user_agent: string | null;
  converted_at: number;
}

/**
 * conversion.created (docs/api.md, "Webhooks and live events"): the conversion record as
 * conversions/new answers it, without the visitor's address and user agent, its time in ISO 8601.
 * The event id comes from the conversion's.
 */
export function conversionEvent<R extends ConversionFields>(
  projectId: string,
  linkId: string,
  record: R,
  convertedAt: Date,
): OutgoingEvent {
  const { ip_address: _ip, user_agent: _agent, converted_at: _seconds, ...rest } = record;
  const at = convertedAt.toISOString();
  return {
    projectId,
    linkId: String(linkId),
    event: {
      id: eventId(record.id, convertedAt.getTime()),
      type: 'conversion.created',
      created_at: new Date().toISOString(),
      data: { conversion: { ...rest, converted_at: at } },
    },
  };
}
