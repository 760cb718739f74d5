import {METRICS, type Session} from '../domain/session.js';
import {sessionAtStep} from '../episode/replay.js';
import {publicView} from '../episode/views.js';
import {hiddenGuarded} from '../episode/blindness.js';
// The panes are the TUI's own pure builders (no Ink in them): the viewer shows what the replay shows.
import {type Block, BlockCache, type Line} from '../present/panes/lines.js';
import {oracleBlocks} from '../present/panes/oraclePane.js';
import {privateBlocks} from '../present/panes/privatePane.js';
import {publicBlocks} from '../present/panes/publicPane.js';
import {esc, jsonScript} from './escape.js';
import {page} from './page.js';
import {mockNotes, sessionMockKind} from '../present/mockNote.js';

/*
 * The session viewer: one page per session, the three partitions side by side, and a step slider
 * that shows every pane as it was right after that step (sessionAtStep, as the TUI replay uses).
 * Each step's panes are lists of blocks; a block that did not change between steps is stored once,
 * so the page grows with what changed, not with steps x content.
 */

const lineHtml = (item: Line) => `<p class="t-${item.tone ?? 'normal'}${item.bold ? ' b' : ''}"${item.indent ? ` style="padding-left:${item.indent}ch"` : ''}>${esc(item.text) || '&nbsp;'}</p>`;
const blockHtml = (block: Block) => block.lines.map(lineHtml).join('');

type Frames = {
	/** Distinct HTML fragments (pane blocks, judge sections), each stored once. */
	blocks: string[];
	/** Per step: its label, the three panes and the judge section (indices into blocks), and how many calls had been made. */
	steps: Array<{label: string; panes: [number[], number[], number[]]; judge: number; calls: number}>;
};

/** Every step's panes, judge section and call count: the page shows the state at the slider's step, every section alike. */
export function paneFrames(session: Session): Frames {
	const cache = new BlockCache();
	const index = new Map<unknown, number>();
	const html = new Map<string, number>();
	const blocks: string[] = [];
	const ids = (list: readonly Block[]) =>
		list.map((block) => {
			let at = index.get(block);
			if (at === undefined) {
				at = blocks.push(blockHtml(block)) - 1;
				index.set(block, at);
			}
			return at;
		});
	const once = (text: string) => {
		let at = html.get(text);
		if (at === undefined) {
			at = blocks.push(text) - 1;
			html.set(text, at);
		}
		return at;
	};
	const steps: Frames['steps'] = [];
	for (let n = 0; n <= session.steps.length; n++) {
		const at = sessionAtStep(session, n);
		steps.push({
			label: n === 0 ? 'before the first step' : `step ${n}: ${session.steps[n - 1]!.label}`,
			panes: [ids(publicBlocks({view: publicView(at), streaming: null, awaitingHuman: false, closingNote: at.turns.some((turn) => turn.closing), emptyHint: '(no messages yet)'}, cache)), ids(privateBlocks(at, cache)), ids(oracleBlocks(at, cache))],
			judge: once(judgeSection(at)),
			calls: at.calls.length,
		});
	}
	return {blocks, steps};
}

const SLIDER_SCRIPT = `
const frames = JSON.parse(document.getElementById('frames').textContent);
const slider = document.getElementById('step');
const label = document.getElementById('step-label');
const panes = ['public', 'private', 'oracle'].map((name) => document.querySelector('.pane.' + name + ' .content'));
const judge = document.getElementById('judge');
const calls = Array.from(document.querySelectorAll('details.call'));
const callCount = document.getElementById('call-count');
const rows = Array.from(document.querySelectorAll('#timeline tr[data-step]'));
const last = frames.steps.length - 1;
const show = (n, push) => {
  n = Math.min(last, Math.max(0, n));
  slider.value = String(n);
  const step = frames.steps[n];
  label.textContent = step.label + ' (' + n + '/' + last + ')';
  step.panes.forEach((ids, i) => { panes[i].innerHTML = ids.map((id) => frames.blocks[id]).join(''); });
  judge.innerHTML = frames.blocks[step.judge];
  calls.forEach((call, i) => { call.hidden = i >= step.calls; });
  callCount.textContent = step.calls + ' of ' + calls.length;
  rows.forEach((row) => { row.classList.toggle('future', Number(row.dataset.step) > n); row.classList.toggle('current', Number(row.dataset.step) === n); });
  if (push) history.replaceState(null, '', '#step-' + n);
};
const fromHash = () => { const m = /^#step-(\\d+)$/.exec(location.hash); if (m) show(Number(m[1]), false); };
slider.addEventListener('input', () => show(Number(slider.value), true));
window.addEventListener('hashchange', fromHash);
document.addEventListener('keydown', (event) => {
  if (event.target instanceof HTMLInputElement && event.target !== slider) return;
  if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    event.preventDefault();
    show(Number(slider.value) + (event.key === 'ArrowRight' ? 1 : -1), true);
  }
});
// An opened call is scrolled clear of the sticky step bar.
const bar = document.querySelector('.stepper');
calls.forEach((call) => call.addEventListener('toggle', () => {
  if (!call.open) return;
  const top = call.getBoundingClientRect().top;
  const covered = bar.getBoundingClientRect().bottom + 8;
  if (top < covered) window.scrollBy(0, top - covered);
}));
fromHash();
`;

/** The viewer's own layout: equal columns that scroll alike, one column on a narrow window, anchors clear of the sticky bar. */
const VIEWER_STYLE = `<style>
.panes { align-items: stretch; }
.pane { display: flex; flex-direction: column; height: 70vh; min-height: 240px; }
.pane .content { overflow-y: auto; flex: 1; }
@media (max-width: 900px) { .panes { grid-template-columns: minmax(0, 1fr); } .pane { height: auto; max-height: 60vh; } }
details.call, #timeline tr, h2 { scroll-margin-top: 64px; }
#timeline { width: 100%; table-layout: fixed; } #timeline td { overflow-wrap: anywhere; } #timeline td:first-child, #timeline th:first-child { width: 5.5em; } #timeline td:nth-child(2), #timeline th:nth-child(2) { width: 4em; }
#timeline tr.future { opacity: 0.45; } #timeline tr.current { background: #eef2ff; }
.ev-user { color: #0e7490; } .ev-assistant { color: var(--public); } .ev-sim { color: var(--private); } .ev-judge { color: var(--oracle); }
</style>`;

function judgeSection(session: Session): string {
	const judge = session.judge;
	if (!judge) return '<p class="muted">Not judged (yet, at this step).</p>';
	const rows = METRICS.map((metric) => `<tr><td>${esc(metric)}</td><td class="num">${judge.scores[metric] ?? '–'}</td><td>${esc(judge.rationales[metric] ?? '')}</td></tr>`).join('');
	const violations = judge.violations.map((v) => `<li>${v.id ? `<b>${esc(v.id)}</b> ` : '<span class="muted">(no oracle id)</span> '}${esc(v.item)}: ${esc(v.evidence)}</li>`).join('');
	return `<p>3H ${judge.threeH?.toFixed(2) ?? '–'} · TDQ ${judge.tdq?.toFixed(2) ?? '–'} · clean ${judge.clean === null ? '–' : judge.clean ? 'yes' : 'no'} · mode ${esc(judge.mode)}</p>
<table><thead><tr><th>metric</th><th class="num">score</th><th>rationale</th></tr></thead><tbody>${rows}</tbody></table>${violations ? `<h3>Violations</h3><ul>${violations}</ul>` : ''}`;
}

function callsSection(session: Session): string {
	if (session.calls.length === 0) return '<p class="muted">No model calls.</p>';
	return session.calls
		.map((call, i) => {
			const head = `#${i + 1} · step ${call.step} · ${call.role} · ${call.stage} · ${call.provider}:${call.model} · ${call.tokens.total} tokens · ${Math.round(call.latencyMs)} ms · ×${call.attempts}${call.cached ? ' · cached' : ''}${call.ok ? '' : ` · ERROR ${call.error ?? ''}`}`;
			const request = call.request.map((message) => `<h4>${esc(message.role)}</h4><pre>${esc(message.content)}</pre>`).join('');
			return `<details class="call" data-call="${esc(call.id)}" data-step="${call.step}"><summary>${esc(head)}</summary><p class="muted">prompt ${esc(call.prompt)} (${esc(call.promptHash)}) · format ${esc(call.responseFormat)} · started ${esc(call.startedAt)}</p><h3>Request</h3>${request}<h3>Reply</h3><pre>${esc(call.response ?? '(no reply)')}</pre>${call.reasoning ? `<h3>Reasoning</h3><pre>${esc(call.reasoning)}</pre>` : ''}</details>`;
		})
		.join('');
}

/**
 * The transcript by step, aligned by turn: each user and assistant turn with its t, the simulator's
 * decision on the reply before it, every judge metric as it arrived, the stages and the end. Each row
 * is the `#step-N` anchor of its step (and moves the slider there).
 */
function timeline(session: Session): string {
	type Row = {step: number; t: string; what: string};
	const rows: Row[] = [];
	for (const step of session.steps) if (step.kind === 'blueprint' || step.kind === 'shards' || step.kind === 'finish') rows.push({step: step.n, t: '', what: `<span class="muted">${esc(step.label)}${step.ok ? '' : ' (failed)'}</span>`});
	for (const turn of session.turns) {
		const decision = turn.assessment ? `<div class="ev-sim">simulator on the reply before: <b>${esc(turn.assessment.decision)}</b> · ${esc(turn.assessment.reasoning)}</div>` : '';
		const who = turn.role === 'user' ? `<span class="ev-user"><b>USER</b>${turn.closing ? ' (closing, never shown to the assistant)' : ''}</span>` : `<span class="ev-assistant"><b>ASSISTANT</b> (${esc(turn.source)}${turn.sawHidden ? ', after seeing hidden state' : ''})</span>`;
		rows.push({step: turn.step, t: `t=${turn.t}`, what: `${decision}${who} ${esc(turn.content)}`});
	}
	for (const metric of METRICS) {
		const at = session.judge?.steps[metric];
		if (at !== null && at !== undefined) rows.push({step: at, t: '', what: `<span class="ev-judge">judge · <b>${esc(metric)}</b> ${session.judge!.scores[metric] ?? '–'} · ${esc(session.judge!.rationales[metric] ?? '')}</span>`});
	}
	if (session.termination) rows.push({step: session.termination.step, t: `t=${session.termination.atTurn}`, what: `<b>ended</b>: ${esc(session.termination.reason)} (by ${esc(session.termination.by)}) ${esc(session.termination.detail)}`});
	if (session.error) rows.push({step: session.error.step, t: '', what: `<span class="bad"><b>${esc(session.error.flag)}</b> ${esc(session.error.message)}</span>`});
	rows.sort((a, b) => a.step - b.step);
	const body = rows.map((row, i) => `<tr data-step="${row.step}"${rows.findIndex((other) => other.step === row.step) === i ? ` id="step-${row.step}"` : ''}><td><a href="#step-${row.step}">step ${row.step}</a></td><td>${esc(row.t)}</td><td>${row.what}</td></tr>`).join('');
	return `<table id="timeline"><thead><tr><th>step</th><th>turn</th><th>what happened (the simulator's decisions and the judge's metrics inline)</th></tr></thead><tbody>${body}</tbody></table>`;
}

/**
 * One session's page. `back` links to the report it was opened from. A session still played blind
 * (episode/blindness.ts) gets the public chat only, whoever asks: showing more is `view --html
 * --reveal`, which records the view on the session before its page is made. Every section (panes,
 * judge, model calls, the timeline's highlight) shows the state at the slider's step; `#step-N`
 * opens the page at step N.
 */
export function sessionPage(session: Session, options: {readonly back?: string} = {}): string {
	if (hiddenGuarded(session)) return blindPage(session, options);
	const frames = paneFrames(session);
	const last = frames.steps.length - 1;
	const final = frames.steps[last]!;
	const pane = (name: string, title: string, ids: readonly number[]) => `<section class="pane ${name}"><h3>${esc(title)}</h3><div class="content">${ids.map((id) => frames.blocks[id]).join('')}</div></section>`;
	const note = mockNotes(sessionMockKind(session))[0];
	const mock = note ? `<div class="banner">${esc(note)}</div>` : '';
	const body = `${VIEWER_STYLE}${options.back ? `<p><a href="${esc(options.back)}">← back</a></p>` : ''}
<h1>${esc(session.id)}</h1>
<p class="muted">${esc(session.persona.identity)} (${esc(session.persona.region)}, ${esc(session.persona.age)}, ${esc(session.persona.gender)}) · ${esc(session.template.id)} · tier ${esc(session.seed.tier)} · ${esc(session.config.language)} · ${esc(session.config.mode)} · assistant ${esc(session.config.assistant)} ${esc(session.config.models.assistant)}${session.sawHidden ? ' (saw hidden state)' : ''} · judge ${esc(session.config.models.judge)} (${esc(session.config.judgeMode)}) · status ${esc(session.error?.flag ?? session.status)}${session.termination ? ` · ended ${esc(session.termination.reason)}` : ''}</p>
${mock}
<div class="stepper"><label for="step">Step</label><input type="range" id="step" min="0" max="${last}" value="${last}"><span id="step-label">${esc(final.label)} (${last}/${last})</span></div>
<div class="panes">${pane('public', 'Public: what the assistant sees', final.panes[0])}${pane('private', 'Private: the simulated user', final.panes[1])}${pane('oracle', 'Oracle: the judge', final.panes[2])}</div>
<h2>Judge <span class="muted">at the slider's step</span></h2>
<div id="judge">${frames.blocks[final.judge]}</div>
<h2>Timeline</h2>
${timeline(session)}
<h2>Model calls <span class="muted">(<span id="call-count">${final.calls} of ${session.calls.length}</span> made by the slider's step)</span></h2>
${callsSection(session)}
${jsonScript('frames', frames)}`;
	return page({title: `${session.id} · cultureconverse`, body, script: SLIDER_SCRIPT});
}

/** The page of a session still played blind: the chat as the assistant saw it, nothing hidden. */
function blindPage(session: Session, options: {readonly back?: string}): string {
	const chat = publicBlocks({view: publicView(session), streaming: null, awaitingHuman: false, emptyHint: '(no messages yet)'}, new BlockCache()).map(blockHtml).join('');
	const body = `${options.back ? `<p><a href="${esc(options.back)}">← back</a></p>` : ''}
<h1>${esc(session.id)}</h1>
<div class="banner">Played blind by a person and not finished (step ${session.steps.length}): its private and oracle state, the judge and the model calls are withheld. <code>npx cultureconverse view ${esc(session.id)} --html DIR --reveal</code> shows them and records that on the session (sawHidden).</div>
<div class="panes"><section class="pane public"><h3>Public: what the assistant sees</h3><div class="content">${chat}</div></section></div>`;
	return page({title: `${session.id} · cultureconverse`, body});
}
