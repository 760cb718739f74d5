import type {Session} from '../../domain/session.js';
import type {Shard} from '../../domain/shards.js';
import {privateView} from '../../episode/views.js';
import {type Block, BlockCache, type Line, line} from './lines.js';

const field = (label: string, value: string, tone: Line['tone'] = 'normal'): Line => line(`${label}: ${value}`, tone, {indent: 2, hang: 2});

function shardLines(shard: Shard, index: number, count: number, language: 'english' | 'native', state: 'passed' | 'current' | 'ahead'): Line[] {
	const mark = state === 'passed' ? '✓' : state === 'current' ? '▶' : ' ';
	return [
		line(`${mark} Shard ${index + 1}/${count}: ${shard.title}`, state === 'current' ? 'private' : state === 'passed' ? 'ok' : 'normal', {bold: state === 'current'}),
		field('goal', shard.goal),
		field('reveal', shard.disclose.length > 0 ? shard.disclose.join('; ') : '(nothing new)'),
		field('signifiers', shard.signifiers.length > 0 ? shard.signifiers.join('; ') : '(none)'),
		field(`directive (${language})`, language === 'english' ? shard.directives.english : shard.directives.native),
		field('success', shard.successCondition, 'ok'),
		field('failure', shard.failureCondition, 'warn'),
	];
}

/**
 * The Private pane: what the simulated user knows and how it has been deciding (privateView). The
 * live parts (current shard, how it ended, decisions newest first) come first; the stable scenario
 * follows.
 */
export function privateBlocks(session: Session, cache: BlockCache): Block[] {
	const view = privateView(session);
	const language = session.config.language;
	const blocks: Block[] = [];
	const blueprint = view.blueprint;
	blocks.push(
		cache.get('persona', [view.personaSummary, blueprint], () => [
			line('Persona', 'heading', {bold: true}),
			line(view.personaSummary, 'normal', {indent: 2, hang: 2}),
			...(blueprint ? [field('identity', blueprint.identity), field('style', blueprint.style)] : [line('(no blueprint yet: the first step writes it)', 'dim', {indent: 2})]),
			line(''),
		]),
	);
	const shards = view.shards;
	if (shards) {
		const count = shards.length;
		const current = Math.min(view.shardIndex, count - 1);
		blocks.push(
			cache.get('shard-current', [shards, view.shardIndex, language, view.lastStyle], () => [
				...(view.shardIndex >= count ? [line(`All ${count} shards passed`, 'ok', {bold: true})] : []),
				...shardLines(shards[current]!, current, count, language, view.shardIndex >= count ? 'passed' : 'current'),
				...(view.lastStyle ? [field('style directive used last', view.lastStyle.split('\n')[0]!, 'dim')] : []),
				line(''),
			]),
		);
	} else {
		blocks.push(cache.get('shard-none', [], () => [line('Shards', 'heading', {bold: true}), line('(no shards yet)', 'dim', {indent: 2}), line('')]));
	}
	if (view.termination) {
		const termination = view.termination;
		blocks.push(
			cache.get('termination', [termination], () => [
				line('Ended', 'heading', {bold: true}),
				line(`${termination.reason} (by ${termination.by}) after ${termination.atTurn} user turn(s); ${termination.shardsPassed}/${shards?.length ?? 0} shards passed`, 'accent', {indent: 2, hang: 2}),
				...(termination.detail ? [line(termination.detail, 'dim', {indent: 2, hang: 2})] : []),
				line(''),
			]),
		);
	}
	if (view.decisions.length > 0) {
		blocks.push(cache.get('decisions-head', [], () => [line('Simulator decisions (newest first)', 'heading', {bold: true})]));
		for (const decision of [...view.decisions].reverse()) {
			const count = shards?.length ?? 0;
			blocks.push(
				cache.get(`decision-${decision.t}`, [decision.decision, decision.reasoning, decision.shard, decision.style, count], () => [
					line(`t=${decision.t} ${decision.decision} → shard ${Math.min(decision.shard + 1, count)}/${count}`, decision.decision === 'ADVANCE_NEXT' ? 'ok' : decision.decision === 'END_FAILED' ? 'error' : 'warn', {indent: 2, bold: true}),
					line(decision.reasoning, 'normal', {indent: 4}),
					...(decision.style ? [line(`style: ${decision.style.split('\n')[0]}`, 'dim', {indent: 4, hang: 2})] : []),
				]),
			);
		}
		blocks.push(cache.get('decisions-end', [], () => [line('')]));
	}
	const opener = session.turns.find((turn) => turn.style?.kind === 'opener');
	if (opener?.style) {
		blocks.push(cache.get('opener', [opener.style], () => [line('Opening style', 'heading', {bold: true}), line(opener.style!.directive, 'dim', {indent: 2, hang: 2}), line('')]));
	}
	const closing = session.turns.find((turn) => turn.closing);
	if (closing) blocks.push(cache.get('closing', [closing], () => [line('Closing message (never shown to the assistant)', 'heading', {bold: true}), line(closing.content, 'normal', {indent: 2}), line('')]));
	if (blueprint) {
		blocks.push(
			cache.get('scenario', [blueprint, view.languageDirective], () => [
				line('Scenario', 'heading', {bold: true}),
				field('situation', blueprint.situation),
				field('goal', blueprint.goal),
				field('slots', blueprint.slots.map((slot) => `${slot.name}=${slot.value}`).join('; ')),
				line('hidden constraints:', 'normal', {indent: 2}),
				...blueprint.hiddenConstraints.map((item, index) => line(`${index + 1}. ${item.constraint} (reveal: ${item.discloseWhen})`, 'private', {indent: 4, hang: 3})),
				...(view.languageDirective ? [field('language', view.languageDirective, 'dim')] : []),
				line(''),
			]),
		);
	}
	if (shards) {
		blocks.push(
			cache.get('plan', [shards, view.shardIndex, language], () => [
				line(`Plan (${shards.length} shards)`, 'heading', {bold: true}),
				...shards.flatMap((shard, index) => shardLines(shard, index, shards.length, language, index < view.shardIndex ? 'passed' : index === view.shardIndex ? 'current' : 'ahead')),
			]),
		);
	}
	return blocks;
}
