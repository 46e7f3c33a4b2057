/** A share id as the share page accepts it: 22 base64url characters. */
export const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * The address of a report's share page: under `publicUrl` (PUBLIC_URL) when configured, else
 * root-relative. Never built from the request's Host, which a client controls.
 */
export function shareUrl(shareId: string, publicUrl?: string): string {
  return `${publicUrl ?? ''}/reports/${shareId}`;
}
