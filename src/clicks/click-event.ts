/** One visit of a link, as the redirect layer records it and the click job carries it. */
export interface ClickEvent {
  /** The click (redirection) id: a UUID made at redirect time; ingestion is idempotent on it. */
  id: string;
  linkId: string;
  projectId: string;
  /** ISO 8601. */
  clickedAt: string;
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
  isBot: boolean;
}

export interface ClickBatch {
  clicks: ClickEvent[];
}
