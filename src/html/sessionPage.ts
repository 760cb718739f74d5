import {METRICS, type Session} from '../domain/session.js';
import {sessionAtStep} from '../episode/replay.js';
import {publicView} from '../episode/views.js';
import {hiddenGuarded} from '../episode/blindness.js';
// The panes are the TUI's own pure builders (no Ink in them): the viewer shows what the replay shows.
import {type Block, BlockCache, type Line} from '../tui/view/lines.js';
import {oracleBlocks} from '../tui/view/oraclePane.js';
import {privateBlocks} from '../tui/view/privatePane.js';
import {publicBlocks} from '../tui/view/publicPane.js';
import {esc, jsonScript} from './escape.js';
import {page} from './page.js';

/*
 * The session viewer: one page per session, the three partitions side by side, and a step slider
 * that shows every pane as it was right after that step (sessionAtStep, as the TUI replay uses).
 * Each step's panes are lists of blocks; a block that did not change between steps is stored once,
 * so the page grows with what changed, not with steps x content.
 */

const lineHtml = (item: Line) => `<p class="t-${item.tone ?? 'normal'}${item.bold ? ' b' : ''}"${item.indent ? ` style="padding-left:${item.indent}ch"` : ''}>${esc(item.text) || '&nbsp;'}</p>`;
const blockHtml = (block: Block) => block.lines.map(lineHtml).join('');

type Frames = {blocks: string[]; steps: Array<{label: string; panes: [number[], number[], number[]]}>};

/** Every step's three panes, as indices into a table of distinct block HTML. */
export function paneFrames(session: Session): Frames {
	const cache = new BlockCache();
	const index = new Map<Block, number>();
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
	const steps: Frames['steps'] = [];
	for (let n = 0; n <= session.steps.length; n++) {
		const at = sessionAtStep(session, n);
		steps.push({
			label: n === 0 ? 'before the first step' : `step ${n}: ${session.steps[n - 1]!.label}`,
			panes: [ids(publicBlocks({view: publicView(at), streaming: null, awaitingHuman: false, closingNote: at.turns.some((turn) => turn.closing), emptyHint: '(no messages yet)'}, cache)), ids(privateBlocks(at, cache)), ids(oracleBlocks(at, cache))],
		});
	}
	return {blocks, steps};
}

const SLIDER_SCRIPT = `
const frames = JSON.parse(document.getElementById('frames').textContent);
const slider = document.getElementById('step');
const label = document.getElementById('step-label');
const panes = ['public', 'private', 'oracle'].map((name) => document.querySelector('.pane.' + name + ' .content'));
const show = (n) => {
  const step = frames.steps[n];
  label.textContent = step.label + ' (' + n + '/' + (frames.steps.length - 1) + ')';
  step.panes.forEach((ids, i) => { panes[i].innerHTML = ids.map((id) => frames.blocks[id]).join(''); });
};
slider.addEventListener('input', () => show(Number(slider.value)));
document.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    slider.value = String(Math.min(frames.steps.length - 1, Math.max(0, Number(slider.value) + (event.key === 'ArrowRight' ? 1 : -1))));
    show(Number(slider.value));
  }
});
`;

function judgeSection(session: Session): string {
	const judge = session.judge;
	if (!judge) return '<p class="muted">Not judged.</p>';
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
			return `<details class="call" data-call="${esc(call.id)}"><summary>${esc(head)}</summary><p class="muted">prompt ${esc(call.prompt)} (${esc(call.promptHash)}) · format ${esc(call.responseFormat)} · started ${esc(call.startedAt)}</p><h3>Request</h3>${request}<h3>Reply</h3><pre>${esc(call.response ?? '(no reply)')}</pre>${call.reasoning ? `<h3>Reasoning</h3><pre>${esc(call.reasoning)}</pre>` : ''}</details>`;
		})
		.join('');
}

/**
 * One session's page. `back` links to the report it was opened from. A session still played blind
 * (episode/blindness.ts) gets the public chat only, whoever asks: showing more is `view --html
 * --reveal`, which records the view on the session before its page is made.
 */
export function sessionPage(session: Session, options: {readonly back?: string} = {}): string {
	if (hiddenGuarded(session)) return blindPage(session, options);
	const frames = paneFrames(session);
	const last = frames.steps.length - 1;
	const final = frames.steps[last]!;
	const pane = (name: string, title: string, ids: readonly number[]) => `<section class="pane ${name}"><h3>${esc(title)}</h3><div class="content">${ids.map((id) => frames.blocks[id]).join('')}</div></section>`;
	const mock = session.config.mock ? '<div class="banner">Some roles ran on the offline mock provider: their output is deterministic filler, not a measurement.</div>' : '';
	const body = `${options.back ? `<p><a href="${esc(options.back)}">← report</a></p>` : ''}
<h1>${esc(session.id)}</h1>
<p class="muted">${esc(session.persona.identity)} (${esc(session.persona.region)}, ${esc(session.persona.age)}, ${esc(session.persona.gender)}) · ${esc(session.template.id)} · tier ${esc(session.seed.tier)} · ${esc(session.config.language)} · ${esc(session.config.mode)} · assistant ${esc(session.config.assistant)} ${esc(session.config.models.assistant)} · judge ${esc(session.config.models.judge)} (${esc(session.config.judgeMode)}) · status ${esc(session.error?.flag ?? session.status)}${session.termination ? ` · ended ${esc(session.termination.reason)}` : ''}</p>
${mock}
<div class="stepper"><label for="step">Step</label><input type="range" id="step" min="0" max="${last}" value="${last}"><span id="step-label">${esc(final.label)} (${last}/${last})</span></div>
<div class="panes">${pane('public', 'Public: what the assistant sees', final.panes[0])}${pane('private', 'Private: the simulated user', final.panes[1])}${pane('oracle', 'Oracle: the judge', final.panes[2])}</div>
<h2>Judge</h2>
${judgeSection(session)}
<h2>Model calls (${session.calls.length})</h2>
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
