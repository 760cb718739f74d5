import type {Blueprint, OracleState, PrivateState} from '../domain/blueprint.js';
import type {EvidenceHit} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import type {Shard} from '../domain/shards.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';

/*
 * Plain-text renderings of domain objects for prompts. Kept in one place so every prompt sees the
 * same wording, and so the judge and simulator prompts differ only in what they are allowed to see.
 */

export function personaSummary(persona: Persona): string {
	const gender = persona.gender === 'female' ? 'woman' : 'man';
	return `${persona.identity} ${gender}, aged ${persona.age}, living in ${persona.regionName}; native language ${persona.languageName}.`;
}

export function seedSummary(seed: Seed): string {
	return JSON.stringify({id: seed.id, tier: seed.tier, split: seed.split});
}

export function templateForPrompt(template: ResolvedTemplate): string {
	return JSON.stringify({id: template.id, title: template.title, sketch: template.sketch, ask: template.ask, slots: template.slots, dimensions: template.dimensions}, null, 2);
}

export function evidenceList(hits: readonly EvidenceHit[]): string {
	if (hits.length === 0) return '(none)';
	return hits
		.map((hit) =>
			hit.kind === 'taboo'
				? `[${hit.id}] (${hit.regions.join('/')}, ${hit.domain}, severity ${hit.severity ?? 'n/a'}${hit.identities && hit.identities.length > 0 ? `, applies to ${hit.identities.join(', ')}` : ''}) AVOID: ${hit.title} WHY: ${hit.text}`
				: `[${hit.id}] (${hit.regions.join('/')}, ${hit.domain}) ${hit.title}: ${hit.text}`,
		)
		.join('\n');
}

export function privateStateText(state: PrivateState): string {
	return [
		`Identity: ${state.identity}`,
		`Style: ${state.style}`,
		`Situation: ${state.situation}`,
		`Goal: ${state.goal}`,
		`Summary: ${state.summary}`,
		`Filled slots: ${state.slots.map((slot) => `${slot.name}=${slot.value}`).join('; ')}`,
		'Hidden constraints:',
		...state.hiddenConstraints.map((item, index) => `  ${index + 1}. ${item.constraint} (reveal: ${item.discloseWhen})`),
	].join('\n');
}

/** The id a judge names a taboo by (tripwires have their own: T1, T2, ...). */
export const tabooId = (index: number) => `X${index + 1}`;

/** Every id a violation may name: the tripwires' and the taboos', with what each forbids. */
export function oracleIds(oracle: OracleState): Map<string, string> {
	return new Map([...oracle.tripwires.map((tripwire) => [tripwire.id, tripwire.description] as const), ...oracle.taboos.map((taboo, index) => [tabooId(index), taboo.description] as const)]);
}

export function oracleText(oracle: OracleState): string {
	return [
		'Success criteria:',
		...oracle.successCriteria.map((item) => `  - ${item}`),
		'Failure criteria:',
		...oracle.failureCriteria.map((item) => `  - ${item}`),
		'Taboos:',
		...(oracle.taboos.length > 0 ? oracle.taboos.map((item, index) => `  - ${tabooId(index)}: ${item.description}${item.evidenceId ? ` [${item.evidenceId}]` : ''}`) : ['  (none)']),
		'Tripwires:',
		...(oracle.tripwires.length > 0 ? oracle.tripwires.map((item) => `  - ${item.id} (${item.severity}): ${item.description}${item.evidenceId ? ` [${item.evidenceId}]` : ''}`) : ['  (none)']),
		`Cross-cultural friction: ${oracle.friction ?? '(none)'}`,
	].join('\n');
}

export function shardText(shard: Shard, index: number, language: 'english' | 'native'): string {
	return [
		`Phase ${index + 1}: ${shard.title}`,
		`Goal: ${shard.goal}`,
		`Details you mention naturally: ${shard.signifiers.length > 0 ? shard.signifiers.join('; ') : '(none)'}`,
		`Reveal in this phase if the assistant gives occasion: ${shard.disclose.length > 0 ? shard.disclose.join('; ') : '(nothing new)'}`,
		`How to speak: ${language === 'english' ? shard.directives.english : shard.directives.native}`,
		`Move on when: ${shard.successCondition}`,
		`The assistant fails this phase if: ${shard.failureCondition}`,
	].join('\n');
}

export function planText(shards: readonly Shard[]): string {
	return shards.map((shard, index) => shardText(shard, index, 'english')).join('\n\n');
}

export function blueprintForShards(blueprint: Blueprint): {public_message: string; private_state: string; oracle: string} {
	return {public_message: blueprint.public.initialMessage, private_state: privateStateText(blueprint.private), oracle: oracleText(blueprint.oracle)};
}
