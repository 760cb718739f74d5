import type {EvidenceHit} from '../../domain/kb.js';
import {METRICS, type Session} from '../../domain/session.js';
import {oracleView} from '../../episode/views.js';
import {type Block, BlockCache, type Line, line} from './lines.js';
import {fixed} from '../numbers.js';


function hitLines(hit: EvidenceHit): Line[] {
	const where = [hit.regions.join('/'), hit.severity ? `severity ${hit.severity}` : null, `score ${hit.score.toFixed(3)}`, hit.source].filter(Boolean).join(' · ');
	const lines: Line[] = [line(`#${hit.rank} ${hit.id} (${where})`, hit.kind === 'taboo' ? 'warn' : 'normal', {indent: 2, hang: 3}), line(hit.kind === 'taboo' ? `AVOID ${hit.title}` : hit.title, 'normal', {indent: 5, hang: 2})];
	if (hit.provenance) {
		const p = hit.provenance;
		lines.push(line(`from ${p.dataset} ${p.file}:${p.line}${p.ref ? ` (${p.ref})` : ''}${p.license ? ` · ${p.license}` : ''}`, 'dim', {indent: 5, hang: 2}));
	}
	return lines;
}

/**
 * The Oracle pane: what only the judge sees (oracleView). Judge scores come first as they arrive,
 * then the latest best-of-N ratings (made with the oracle), criteria, taboos and tripwires, then the
 * KB evidence with its provenance.
 */
export function oracleBlocks(session: Session, cache: BlockCache): Block[] {
	const view = oracleView(session);
	const blocks: Block[] = [];
	const judge = view.judge;
	if (judge) {
		blocks.push(cache.get('judge-head', [judge.mode], () => [line(`Judge (${judge.mode})`, 'heading', {bold: true})]));
		for (const metric of METRICS) {
			const score = judge.scores[metric];
			const rationale = judge.rationales[metric];
			blocks.push(
				cache.get(`judge-${metric}`, [score, rationale], () => [
					line(`${metric.padEnd(13)} ${score === null ? '–' : String(score)}`, score === null ? 'dim' : score >= 4 ? 'ok' : score <= 2 ? 'error' : 'warn', {indent: 2, bold: score !== null}),
					...(rationale ? [line(rationale, 'dim', {indent: 4})] : []),
				]),
			);
		}
		blocks.push(
			cache.get('judge-summary', [judge.threeH, judge.tdq, judge.clean, judge.violations], () => [
				line(`3H ${fixed(judge.threeH)}   TDQ ${fixed(judge.tdq)}   clean ${judge.clean === null ? '–' : judge.clean ? 'yes' : 'NO'}`, judge.clean === false ? 'error' : 'accent', {indent: 2, bold: true}),
				...judge.violations.map((violation) => line(`violation: ${violation.item} (${violation.evidence})`, 'error', {indent: 2, hang: 2})),
				line(''),
			]),
		);
	}
	if (view.error) {
		const error = view.error;
		blocks.push(cache.get('error', [error], () => [line(`${error.flag} at step ${error.step}`, 'error', {bold: true}), line(error.message, 'error', {indent: 2}), line('')]));
	}
	const bestOf = [...session.turns].reverse().find((turn) => turn.role === 'assistant' && turn.candidates && turn.candidates.length > 0);
	if (bestOf?.candidates) {
		const candidates = bestOf.candidates;
		blocks.push(
			cache.get(`best-of-${bestOf.index}`, [candidates], () => [
				line(`Best-of-${candidates.length} candidates (assistant t=${bestOf.t}, rated by the judge role)`, 'heading', {bold: true}),
				...candidates.flatMap((candidate, index) => [
					line(`${candidate.chosen ? '▶' : ' '} #${index + 1} score ${candidate.score}${candidate.chosen ? ' (said)' : ''}: ${candidate.content.split('\n')[0]}`, candidate.chosen ? 'ok' : 'normal', {indent: 2, hang: 4, bold: candidate.chosen}),
					line(candidate.rationale, 'dim', {indent: 6}),
				]),
				line(''),
			]),
		);
	}
	const oracle = view.oracle;
	if (!oracle) {
		blocks.push(cache.get('oracle-none', [], () => [line('Oracle', 'heading', {bold: true}), line('(no blueprint yet: the first step retrieves KB evidence and writes it)', 'dim', {indent: 2})]));
		return blocks;
	}
	blocks.push(
		cache.get('criteria', [oracle], () => [
			line('Success criteria', 'heading', {bold: true}),
			...oracle.successCriteria.map((item) => line(`+ ${item}`, 'ok', {indent: 2, hang: 2})),
			line('Failure criteria', 'heading', {bold: true}),
			...oracle.failureCriteria.map((item) => line(`- ${item}`, 'warn', {indent: 2, hang: 2})),
			line('Taboos', 'heading', {bold: true}),
			...(oracle.taboos.length > 0 ? oracle.taboos.map((item) => line(`! ${item.description}${item.evidenceId ? ` [${item.evidenceId}]` : ''}`, 'error', {indent: 2, hang: 2})) : [line('(none)', 'dim', {indent: 2})]),
			line('Tripwires', 'heading', {bold: true}),
			...(oracle.tripwires.length > 0 ? oracle.tripwires.map((item) => line(`${item.id} (${item.severity}) ${item.description}${item.evidenceId ? ` [${item.evidenceId}]` : ''}`, 'warn', {indent: 2, hang: 3})) : [line('(none)', 'dim', {indent: 2})]),
			...(oracle.friction ? [line('Cross-cultural friction', 'heading', {bold: true}), line(oracle.friction, 'normal', {indent: 2})] : []),
			line(''),
		]),
	);
	const evidence = view.evidence;
	if (evidence) {
		blocks.push(
			cache.get('evidence', [evidence], () => [
				line(`KB evidence (embedder ${evidence.embedder}${evidence.secondaryRegion ? `, secondary region ${evidence.secondaryRegion}` : ''})`, 'heading', {bold: true}),
				line(`query: ${evidence.queries.cultural}`, 'dim', {indent: 2, hang: 2}),
				...evidence.cultural.flatMap(hitLines),
				...(evidence.queries.taboo ? [line(`taboo query: ${evidence.queries.taboo}`, 'dim', {indent: 2, hang: 2})] : []),
				...evidence.taboo.flatMap(hitLines),
				...(evidence.cultural.length + evidence.taboo.length === 0 ? [line('(no hits)', 'dim', {indent: 2})] : []),
			]),
		);
	}
	return blocks;
}
