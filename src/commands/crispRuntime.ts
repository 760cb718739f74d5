import {SetupBreaker} from '../llm/breaker.js';
import {stopText} from '../llm/advice.js';
import chalk from 'chalk';
import {createRuntime} from '../app/runtime.js';
import {modelOptionsFromFlags} from './modelFlags.js';
import {runtimeOptionsFromFlags} from './runtimeFlags.js';
import type {CallRecord, ModelRole, RoleSettings} from '../domain/session.js';
import {resolveRoleSettings} from '../llm/settings.js';
import type {CallContext} from '../situated/agents.js';
import {type GroundingSource, type RewardSelector, endpointGrounding, endpointSelector, judgeGrounding, modelSelector} from '../situated/scorers.js';
import {UserError} from '../util/errors.js';
import {wholeFlag} from './flagValues.js';
import type {CommandContext} from './types.js';

/* The model side every `crisp` subcommand that calls models shares: one runtime, the reward model, the grounding source. */

/**
 * One gateway for the run, the call context, and every finished or failed call (for the spend line at
 * the end). `roles` are the ones the subcommand calls: one without a model stops it before it starts.
 */
export async function callContext(context: CommandContext, roles: readonly ModelRole[]) {
	const runtime = createRuntime({options: runtimeOptionsFromFlags(context.flags), io: context.io, universe: context.universe(), roles});
	await runtime.check(roles);
	if (runtime.settings.offline && !context.flags['json']) context.io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured (set OPENAI_BASE_URL / OPENAI_API_KEY). Items and scores are deterministic filler marked [mock], not a measurement.\n'));
	// Repeated set-up failures (a bad key, no quota, an unknown model) stop the run, calls in flight included.
	const breaker = new SetupBreaker(wholeFlag(context.flags, 'stopAfter', {min: 0, max: 1_000_000}, 3), context.io.signal);
	const call: CallContext = {gateway: runtime.gateway, signal: breaker.signal};
	const calls: CallRecord[] = [];
	runtime.gateway.onEvent((event) => {
		if (event.type === 'call_done' || event.type === 'call_failed') calls.push(event.call);
	});
	return {runtime, call, calls, breaker, parallel: wholeFlag(context.flags, 'parallel', {min: 1, max: 256}, 4)};
}

/** Says why a run stopped on the breaker (exit 2), or nothing; for every crisp subcommand that calls models. */
export function reportStop(io: CommandContext['io'], runtime: {gateway: {settings: (role: ModelRole) => RoleSettings}; settings: {apiKeyEnv: Readonly<Record<ModelRole, string>>}}, breaker: SetupBreaker, what: string): boolean {
	breaker.dispose();
	const stop = breaker.stopped;
	if (!stop) return false;
	io.stderr.write(stopText(stop, what, runtime.gateway.settings(stop.role), runtime.settings.apiKeyEnv[stop.role]));
	return true;
}

const httpUrl = (flag: string, value: unknown): string => {
	if (typeof value !== 'string' || !/^https?:\/\/\S+$/.test(value)) throw new UserError(`--${flag} must be an http(s) URL, got '${String(value)}'.`);
	return value;
};

/**
 * The reward model of `crisp eval`: `--reward-model MODEL` (a chat model reached like the judge: its
 * endpoint, key and parameters, with this model name; `mock` offline) or `--reward-endpoint URL` (a
 * scoring service). Null when neither is given: then no best-of-N pick is made.
 */
export function rewardSelector({flags, io}: CommandContext): RewardSelector | null {
	const model = flags['rewardModel'];
	const endpoint = flags['rewardEndpoint'];
	if (model !== undefined && endpoint !== undefined) throw new UserError('Give --reward-model or --reward-endpoint, not both: one evaluation run ranks its samples with one reward model (run eval again for another).');
	if (endpoint !== undefined) return endpointSelector(httpUrl('reward-endpoint', endpoint));
	if (model === undefined) return null;
	if (typeof model !== 'string' || model.trim() === '') throw new UserError('--reward-model needs a model name (or mock).');
	return modelSelector(resolveRoleSettings({options: modelOptionsFromFlags({...flags, judgeModel: model}), env: io.env, cwd: io.cwd}).roles.judge);
}

/**
 * `--ngs judge` (default: a judge-role call with its own prompt), `--ngs none`, `--ngs URL` (a
 * classifier service), or `--ngs MODEL` (that call with another model, reached like the judge).
 */
export function groundingSource({flags, io}: CommandContext, judgeModel: string): GroundingSource | null {
	const value = flags['ngs'] ?? 'judge';
	if (typeof value !== 'string' || value.trim() === '') throw new UserError('--ngs needs a value: judge, none, a model name or an http(s) URL.');
	if (value === 'none') return null;
	if (value === 'judge') return judgeGrounding(judgeModel);
	if (/^[a-z]+:\/\//i.test(value)) return endpointGrounding(httpUrl('ngs', value));
	return judgeGrounding(judgeModel, resolveRoleSettings({options: modelOptionsFromFlags({...flags, judgeModel: value}), env: io.env, cwd: io.cwd}).roles.judge);
}
