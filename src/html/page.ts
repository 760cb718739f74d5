import {esc} from './escape.js';

/*
 * The shell of every page: styles and any script inline, nothing fetched, so a page opens from disk
 * with no network. The scripts are small and plain (no framework): sorting and filtering the episode
 * table, and the session viewer's step slider.
 */

const STYLE = `
:root { --fg: #1d2430; --muted: #6b7280; --line: #e5e7eb; --accent: #4269d0; --bg: #fff; --soft: #f6f7f9;
  --public: #137333; --private: #b06000; --oracle: #8430ce; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0; padding: 24px 32px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.muted { color: var(--muted); font-weight: normal; } .warn { color: #b45309; } .bad { color: #b91c1c; }
.banner { background: #fef3c7; border: 1px solid #f59e0b; padding: 8px 12px; border-radius: 6px; margin: 12px 0; }
.grid { display: flex; flex-wrap: wrap; gap: 18px; }
figure.chart { margin: 0; padding: 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); flex: 1 1 560px; max-width: 100%; min-width: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
figure.chart > svg { display: block; width: 100%; max-width: 960px; height: auto; }
figure.chart.square { flex: 0 1 480px; } figure.chart.square > svg { max-width: 480px; }
figure.chart .legend { font-size: 12px; margin: 4px 0 0; } figure.chart .downloads { font-size: 12px; margin: 4px 0 0; color: var(--muted); }
figure.chart .downloads button { font: inherit; padding: 1px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--soft); cursor: pointer; }
figure.chart div[class$="-swatches"], figure.chart div[class*="-swatches "] { font-size: 12px; }
.scroll { max-width: 100%; overflow-x: auto; }
td.id, td.id a { white-space: nowrap; } td .ci { display: block; font-size: 11px; color: var(--muted); white-space: normal; max-width: 11em; margin-left: auto; }
dl.kv dd { overflow-wrap: anywhere; min-width: 0; } h1 { overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; }
table.sortable th { cursor: pointer; user-select: none; } table.sortable th::after { content: " ⇅"; color: var(--muted); } table.sortable th[aria-sort="ascending"]::after { content: " ▲ ascending"; color: var(--accent); } table.sortable th[aria-sort="descending"]::after { content: " ▼ descending"; color: var(--accent); }
@media (max-width: 900px) { body { padding: 16px 12px; } table { font-size: 12.5px; } th, td { padding: 3px 4px; } input[type=search] { width: 100%; } }
input[type=search] { font: inherit; padding: 4px 8px; width: 320px; border: 1px solid var(--line); border-radius: 4px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; } dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; }
.panes { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; }
.pane { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; min-height: 200px; overflow-wrap: anywhere; }
.pane h3 { margin-top: 0; } .pane.public h3 { color: var(--public); } .pane.private h3 { color: var(--private); } .pane.oracle h3 { color: var(--oracle); }
.pane p { margin: 0; white-space: pre-wrap; }
.t-dim { color: var(--muted); } .t-user { color: #0e7490; } .t-assistant { color: var(--public); } .t-heading { font-weight: 600; margin-top: 6px !important; }
.t-private { color: var(--private); } .t-oracle { color: var(--oracle); } .t-ok { color: #15803d; } .t-warn { color: #b45309; } .t-error { color: #b91c1c; } .t-accent { color: var(--accent); }
.b { font-weight: 600; }
.stepper { position: sticky; top: 0; background: var(--bg); padding: 8px 0; z-index: 1; display: flex; gap: 12px; align-items: center; border-bottom: 1px solid var(--line); margin-bottom: 10px; }
.stepper input[type=range] { flex: 1; }
details { border: 1px solid var(--line); border-radius: 4px; margin: 4px 0; padding: 4px 8px; } summary { cursor: pointer; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: 6px 8px; border-radius: 4px; margin: 4px 0; font-size: 12px; }
`;

/** A complete, self-contained HTML document. */
export function page(options: {readonly title: string; readonly body: string; readonly script?: string}): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
${options.body}
${options.script ? `<script>${options.script}</script>` : ''}
</body>
</html>
`;
}

/**
 * Per-figure downloads: SVG (the figure's own markup), PNG (that SVG drawn on a canvas at twice its
 * size) and CSV (the numbers drawn, kept in the figure's data-csv attribute).
 */
export const FIGURE_SCRIPT = `
const save = (name, url) => { const a = document.createElement('a'); a.href = url; a.download = name; document.body.append(a); a.click(); a.remove(); };
for (const figure of document.querySelectorAll('figure.chart[data-file]')) {
  const name = figure.dataset.file;
  const svgText = () => { const svg = figure.querySelector(':scope > svg'); const copy = svg.cloneNode(true); copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg'); copy.setAttribute('font-family', 'system-ui, sans-serif'); return new XMLSerializer().serializeToString(copy); };
  figure.querySelectorAll('button[data-download]').forEach((button) => button.addEventListener('click', () => {
    const kind = button.dataset.download;
    if (kind === 'csv') return save(name + '.csv', URL.createObjectURL(new Blob([figure.querySelector('.downloads').dataset.csv + '\\n'], {type: 'text/csv'})));
    const text = svgText();
    if (kind === 'svg') return save(name + '.svg', URL.createObjectURL(new Blob([text], {type: 'image/svg+xml'})));
    const svg = figure.querySelector(':scope > svg');
    const box = svg.viewBox.baseVal; const width = box && box.width ? box.width : svg.clientWidth; const height = box && box.height ? box.height : svg.clientHeight;
    const image = new Image();
    image.onload = () => { const canvas = document.createElement('canvas'); canvas.width = width * 2; canvas.height = height * 2; const g = canvas.getContext('2d'); g.fillStyle = '#fff'; g.fillRect(0, 0, canvas.width, canvas.height); g.drawImage(image, 0, 0, canvas.width, canvas.height); canvas.toBlob((blob) => save(name + '.png', URL.createObjectURL(blob)), 'image/png'); };
    image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  }));
}
`;

/**
 * Sorting (click a header; cells sort by data-sort when they have it, else by text, numbers as
 * numbers) and filtering (every word typed must appear in the row) of `table.sortable`, paired with
 * `input[data-filter=<table id>]`. A count element `[data-count=<table id>]` shows the visible rows.
 */
export const TABLE_SCRIPT = `
for (const table of document.querySelectorAll('table.sortable')) {
  const body = table.tBodies[0];
  const count = document.querySelector('[data-count="' + table.id + '"]');
  const show = () => { if (count) count.textContent = String([...body.rows].filter((r) => !r.hidden).length); };
  table.tHead.querySelectorAll('th').forEach((th, index) => th.addEventListener('click', () => {
    const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    table.tHead.querySelectorAll('th').forEach((other) => other.removeAttribute('aria-sort'));
    th.setAttribute('aria-sort', dir);
    const key = (row) => { const cell = row.cells[index]; const v = cell.dataset.sort ?? cell.textContent.trim(); const n = Number(v); return v !== '' && !Number.isNaN(n) ? n : v; };
    const rows = [...body.rows].sort((a, b) => { const x = key(a), y = key(b); const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)); return dir === 'ascending' ? c : -c; });
    body.append(...rows);
  }));
  const input = document.querySelector('input[data-filter="' + table.id + '"]');
  if (input) input.addEventListener('input', () => {
    const words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    for (const row of body.rows) { const text = row.textContent.toLowerCase(); row.hidden = !words.every((w) => text.includes(w)); }
    show();
  });
  show();
}
`;
