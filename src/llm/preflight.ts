import {APIError} from 'openai';
import type {ModelRole, RoleSettings} from '../domain/session.js';
import {UserError} from '../util/errors.js';
import {nearMatches} from '../util/suggest.js';
import {setupAdvice} from './advice.js';
import {openaiClient} from './client.js';
import {type ModelList, listModels, modelListed} from './endpoint.js';
import {wireRules} from './modelFamily.js';
import {PRESETS} from './presets.js';
import {classifyStatus} from './retry.js';
import {maskSecrets} from './secrets.js';
import type {ModelSettings} from './settings.js';

/** Roles that share one endpoint and key: each such group is asked `GET /models` once. */
export type EndpointGroup = {readonly baseURL: string | null; readonly apiKeyEnv: string; readonly roles: readonly ModelRole[]; readonly settings: RoleSettings};

export function endpointGroups(settings: Pick<ModelSettings, 'roles' | 'apiKeyEnv'>, roles: readonly ModelRole[]): EndpointGroup[] {
	const groups = new Map<string, {baseURL: string | null; apiKeyEnv: string; roles: ModelRole[]; settings: RoleSettings}>();
	for (const role of roles) {
		const role_ = settings.roles[role];
		if (role_.provider !== 'openai' || role_.model === '') continue;
		const id = JSON.stringify([role_.baseURL, settings.apiKeyEnv[role], role_.preset, role_.apiVersion]);
		const group: {baseURL: string | null; apiKeyEnv: string; roles: ModelRole[]; settings: RoleSettings} = groups.get(id) ?? {baseURL: role_.baseURL, apiKeyEnv: settings.apiKeyEnv[role], roles: [], settings: role_};
		group.roles.push(role);
		groups.set(id, group);
	}
	return [...groups.values()];
}

export type PreflightResult = {readonly problems: readonly string[]; readonly warnings: readonly string[]; readonly lists: ReadonlyArray<{readonly group: EndpointGroup; readonly list: ModelList}>};

/**
 * Checks a set-up before model work starts: each distinct (endpoint, key) answers `GET /models`, the
 * key is accepted, and every role's model is one the server offers, the way that server resolves
 * names (endpoint.ts `modelListed`: llama.cpp serves any name; Azure lists base models rather than
 * deployments, so a deployment gets one tiny call instead). A batch of thousands then fails in a second with one message instead of item by item.
 */
export async function checkSetup(settings: Pick<ModelSettings, 'roles' | 'apiKeyEnv'>, roles: readonly ModelRole[], env: NodeJS.ProcessEnv): Promise<PreflightResult> {
	const problems: string[] = [];
	const warnings: string[] = [];
	const lists: Array<{group: EndpointGroup; list: ModelList}> = [];
	// One probe per deployment, however many roles use it.
	const probes = new Map<string, Promise<string | null>>();
	await Promise.all(
		endpointGroups(settings, roles).map(async (group) => {
			const list = await listModels({...group.settings, apiKey: env[group.apiKeyEnv]});
			lists.push({group, list});
			const where = group.baseURL ?? 'https://api.openai.com/v1';
			const who = `${group.roles.join(', ')} role${group.roles.length > 1 ? 's' : ''}`;
			if (!list.ok) {
				if (list.problem === 'unreachable') problems.push(`Cannot reach ${where} (${who}): ${list.message}.`);
				else if (list.problem === 'auth') problems.push(`${where} refused the API key (${who}): HTTP ${list.status}: ${list.message}. Set a valid key in the environment variable ${group.apiKeyEnv}${env[group.apiKeyEnv] ? '' : ' (it is not set)'}.`);
				else if (list.problem === 'error') warnings.push(`${where} did not list its models (${list.status ? `HTTP ${list.status}: ` : ''}${list.message}); model names of the ${who} are not checked.`);
				return;
			}
			for (const role of group.roles) {
				const model = settings.roles[role].model;
				const listed = modelListed(model, list);
				if (listed === 'unlisted') {
					// Azure lists base models, not deployments: only a call can say whether the deployment exists.
					const id = JSON.stringify([group.baseURL, group.apiKeyEnv, model]);
					if (!probes.has(id)) probes.set(id, probeDeployment(settings.roles[role], role, env[group.apiKeyEnv], group.apiKeyEnv));
					const problem = await probes.get(id)!;
					if (problem) problems.push(problem);
					continue;
				}
				if (listed !== false) continue;
				const prefix = PRESETS[list.server].idPrefix ?? '';
				const offered = list.models.map((entry) => (prefix && entry.id.startsWith(prefix) ? entry.id.slice(prefix.length) : entry.id));
				const near = nearMatches(model, offered, 3);
				const shown = offered.length > 12 ? `${offered.slice(0, 12).join(', ')} and ${offered.length - 12} more` : offered.join(', ') || 'none';
				problems.push(`The ${role} role's model '${model}' is not offered by ${where}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}; it offers: ${shown}. Set --${role}-model (or --model for every role).`);
			}
		}),
	);
	return {problems, warnings, lists};
}

/**
 * One tiny request (16 tokens) to a model the server's list cannot vouch for (an Azure deployment):
 * a 404 or a refused key is a problem with the server's own words and what to change; anything else
 * (a reply, a 400 about the tiny cap, a 429) says the deployment is there.
 */
async function probeDeployment(settings: RoleSettings, role: ModelRole, apiKey: string | undefined, apiKeyEnv: string): Promise<string | null> {
	const client = openaiClient({baseURL: settings.baseURL, preset: settings.preset, dialect: settings.dialect, apiVersion: settings.apiVersion, apiKey, timeoutMs: Math.min(settings.timeoutMs, 20_000)});
	try {
		await client.chat.completions.create({model: settings.model, messages: [{role: 'user', content: 'Say OK.'}], [wireRules(settings).tokenField]: 16});
		return null;
	} catch (error) {
		if (!(error instanceof APIError) || typeof error.status !== 'number') return null;
		const body = (error.error ?? {}) as {message?: string};
		const message = maskSecrets(typeof body.message === 'string' ? body.message : error.message, [apiKey ?? ''].filter(Boolean));
		const kind = classifyStatus(error.status, error.headers, Date.now(), body as Parameters<typeof classifyStatus>[3], message).kind;
		if (kind !== 'not_found' && kind !== 'auth') return null;
		return `${settings.baseURL ?? 'the endpoint'} answered the ${role} role's model '${settings.model}' with HTTP ${error.status}: ${message}. ${setupAdvice(kind, role, settings, apiKeyEnv, message)}`;
	}
}

/**
 * `checkSetup` for commands: warnings go to `warn`, problems stop the command with exit 2 before any
 * model call. Skipped offline, for mock and replay roles, and with `--no-preflight`.
 */
export async function preflight(settings: ModelSettings, roles: readonly ModelRole[], context: {env: NodeJS.ProcessEnv; warn: (message: string) => void}): Promise<void> {
	if (!settings.preflight || settings.offline) return;
	const result = await checkSetup(settings, roles, context.env);
	for (const warning of result.warnings) context.warn(warning);
	if (result.problems.length > 0) {
		throw new UserError(`The model set-up does not work, so nothing was started:\n  - ${result.problems.join('\n  - ')}\n  (\`npx cultureconverse doctor\` checks every role in detail; --no-preflight skips this check.)`);
	}
}
