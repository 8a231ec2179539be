import type { Response } from 'express';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * A small self-contained HTML page for people (checkout return pages, the sandbox checkout): no scripts, no
 * external resources, forms may only post back here, and it may not be framed (clickjacking a Pay button).
 * `bodyHtml` must already be escaped.
 */
export function sendHtmlPage(res: Response, status: number, title: string, bodyHtml: string): void {
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>CardLens: ${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}` +
        `.sandbox{background:#fff3cd;border:2px solid #b58900;padding:.75rem}button{font-size:1rem;padding:.5rem 1.25rem;margin:.25rem 0}</style></head>` +
        `<body><h1>${escapeHtml(title)}</h1>${bodyHtml}</body></html>`,
    );
}
