/* HTML from plain functions of data: every interpolated value goes through esc(). */

const ENTITIES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'};

/** Text or an attribute value, escaped for HTML. */
export const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (char) => ENTITIES[char]!);

/** JSON for a `<script type="application/json">` block: `<` escaped so no "</script>" can end it early. */
export const jsonScript = (id: string, value: unknown): string => `<script type="application/json" id="${esc(id)}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
