import {METRICS, type Session} from '../domain/session.js';
import {hiddenGuarded} from '../episode/blindness.js';
import {publicView} from '../episode/views.js';
import {mockNotes, sessionMockKind} from '../present/mockNote.js';
import {esc} from './escape.js';
import {page} from './page.js';

/*
 * Two sessions of one seed side by side (`view A --compare B --html DIR`): the chat each assistant
 * saw, aligned by turn (one row per turn, the same t on both sides), under each judge's scores. Only
 * the public view is shown, and a session still played blind shows no judge figure (episode/blindness.ts).
 */

function head(session: Session): string {
	const judge = hiddenGuarded(session) ? null : session.judge;
	const scores = judge ? `<table><tbody>${METRICS.map((metric) => `<tr><td>${esc(metric)}</td><td class="num">${judge.scores[metric] ?? '–'}</td></tr>`).join('')}<tr><td><b>3H</b></td><td class="num">${judge.threeH?.toFixed(2) ?? '–'}</td></tr><tr><td><b>TDQ</b></td><td class="num">${judge.tdq?.toFixed(2) ?? '–'}</td></tr><tr><td>clean</td><td class="num">${judge.clean === null ? '–' : judge.clean ? 'yes' : 'no'}</td></tr></tbody></table>` : '<p class="muted">not judged</p>';
	const note = mockNotes(sessionMockKind(session)).at(-1);
	return `<h3><a href="${esc(encodeURIComponent(session.id))}.html">${esc(session.id)}</a></h3><p class="muted">assistant ${esc(session.config.assistant)} ${esc(session.config.models.assistant)} · judge ${esc(session.config.models.judge)} (${esc(session.config.judgeMode)}) · ${esc(session.status)}${note ? ` · ${esc(note)}` : ''}</p>${scores}`;
}

/** The page; throws when the two are not of one seed (a comparison would not compare like with like). */
export function comparePage(left: Session, right: Session): string {
	if (left.seed.id !== right.seed.id) throw new Error(`${left.id} and ${right.id} are of different seeds (${left.seed.id}, ${right.seed.id}): a comparison needs the same seed.`);
	const [a, b] = [publicView(left).messages, publicView(right).messages];
	const rows: string[] = [];
	const turnOf = (messages: typeof a, index: number) => messages.slice(0, index + 1).filter((message) => message.role === 'user').length - 1;
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		const cell = (messages: typeof a) => {
			const message = messages[i];
			return message ? `<td class="${message.role === 'user' ? 't-user' : 't-assistant'}"><b>${message.role.toUpperCase()}</b><p>${esc(message.content)}</p></td>` : '<td class="muted">(no such turn)</td>';
		};
		const message = a[i] ?? b[i]!;
		rows.push(`<tr id="turn-${i}"><th>${esc(message.role)} t=${turnOf(a[i] ? a : b, i)}</th>${cell(a)}${cell(b)}</tr>`);
	}
	const body = `<style>#compare { width: 100%; table-layout: fixed; } #compare td { overflow-wrap: anywhere; } #compare th:first-child { width: 8.5em; } #compare p { white-space: pre-wrap; margin: 2px 0; }</style>
<h1>Compare · seed ${esc(left.seed.id)}</h1>
<p class="muted">${esc(left.config.language)} · the chat as each assistant saw it, turn by turn, under its judge's scores</p>
<table id="compare"><thead><tr><th></th><th>${head(left)}</th><th>${head(right)}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
	return page({title: `compare ${left.id} ${right.id} · cultureconverse`, body});
}
