import type {Shard, ShardAudit, ShardPlan} from '../domain/shards.js';
import type {ShardsAuditMockInput, ShardsMockInput} from '../pipeline/shards.js';
import {fnv1a} from '../util/hash.js';
import {lowerFirst, stripEnd} from './text.js';

export function mockShards(input: unknown): ShardPlan {
	const {context} = input as ShardsMockInput;
	const {blueprint} = context;
	const hidden = blueprint.private.hiddenConstraints;
	const count = Math.min(5, Math.max(3, hidden.length + 2 + (fnv1a(blueprint.private.summary) % 2)));
	const goal = stripEnd(blueprint.private.goal);
	const shards: Shard[] = [];
	for (let index = 0; index < count; index++) {
		const first = index === 0;
		const last = index === count - 1;
		const reveal = !first && !last ? hidden[index - 1] : undefined;
		shards.push({
			title: first ? 'Lay out the problem' : last ? 'Settle the plan' : `Constraint ${index}`,
			goal: first ? `Get a first, concrete suggestion: ${lowerFirst(goal)}` : last ? 'Leave with a plan or wording ready to use' : `Make sure the plan works with this: ${reveal ? lowerFirst(stripEnd(reveal.constraint)) : 'what matters to my family'}`,
			signifiers: blueprint.private.slots.slice(index, index + 2).map((slot) => slot.value),
			disclose: reveal ? [reveal.constraint] : [],
			directives: {
				english: first ? 'Keep it short and practical; do not list every detail.' : 'React to the last suggestion in one or two sentences.',
				native: 'Use the everyday register you would use with a helpful stranger; keep it short.',
			},
			successCondition: first
				? 'The assistant gives at least one concrete, relevant suggestion or asks a useful clarifying question.'
				: last
					? 'The assistant turns the discussion into clear next steps or ready-to-use wording.'
					: `The assistant adapts its advice to the newly revealed constraint${reveal ? ` (${lowerFirst(stripEnd(reveal.constraint))})` : ''}.`,
			failureCondition: first ? 'The assistant ignores the request or answers a different question.' : 'The assistant repeats advice that clashes with what the user has revealed.',
		});
	}
	return {shards};
}

export function mockShardsAudit(input: unknown): ShardAudit {
	const {plan} = input as ShardsAuditMockInput;
	return {plausible: true, answerable: true, tierChallengePresent: true, progressiveDisclosure: plan.shards.slice(1).some((shard) => shard.disclose.length > 0) || plan.shards.every((shard) => shard.disclose.length === 0), problems: []};
}
