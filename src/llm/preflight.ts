import type {ModelRole} from '../domain/session.js';
import {UserError} from '../util/errors.js';
import {nearMatches} from '../util/suggest.js';
import {type ModelList, listModels, modelListed} from './endpoint.js';
import type {ModelSettings} from './settings.js';

/** Roles that share one endpoint and key: each such group is asked `GET /models` once. */
export type EndpointGroup = {readonly baseURL: string | null; readonly apiKeyEnv: string; readonly roles: readonly ModelRole[]};

export function endpointGroups(settings: Pick<ModelSettings, 'roles' | 'apiKeyEnv'>, roles: readonly ModelRole[]): EndpointGroup[] {
	const groups = new Map<string, {baseURL: string | null; apiKeyEnv: string; roles: ModelRole[]}>();
	for (const role of roles) {
		const role_ = settings.roles[role];
		if (role_.provider !== 'openai' || role_.model === '') continue;
		const id = JSON.stringify([role_.baseURL, settings.apiKeyEnv[role]]);
		const group = groups.get(id) ?? {baseURL: role_.baseURL, apiKeyEnv: settings.apiKeyEnv[role], roles: []};
		group.roles.push(role);
		groups.set(id, group);
	}
	return [...groups.values()];
}

export type PreflightResult = {readonly problems: readonly string[]; readonly warnings: readonly string[]; readonly lists: ReadonlyArray<{readonly group: EndpointGroup; readonly list: ModelList}>};

/**
 * Checks a set-up before model work starts: each distinct (endpoint, key) answers `GET /models`, the
 * key is accepted, and every role's model is one the server offers (where it lists models: Azure
 * lists base models rather than deployments and llama.cpp serves any name, so those are not held to
 * the list). A batch of thousands then fails in a second with one message instead of item by item.
 */
export async function checkSetup(settings: Pick<ModelSettings, 'roles' | 'apiKeyEnv'>, roles: readonly ModelRole[], env: NodeJS.ProcessEnv): Promise<PreflightResult> {
	const problems: string[] = [];
	const warnings: string[] = [];
	const lists: Array<{group: EndpointGroup; list: ModelList}> = [];
	await Promise.all(
		endpointGroups(settings, roles).map(async (group) => {
			const list = await listModels({baseURL: group.baseURL, apiKey: env[group.apiKeyEnv]});
			lists.push({group, list});
			const where = group.baseURL ?? 'https://api.openai.com/v1';
			const who = `${group.roles.join(', ')} role${group.roles.length > 1 ? 's' : ''}`;
			if (!list.ok) {
				if (list.problem === 'unreachable') problems.push(`Cannot reach ${where} (${who}): ${list.message}. Is the server running, and is the base URL right (--base-url, OPENAI_BASE_URL or "baseURL" in the config)?`);
				else if (list.problem === 'auth') problems.push(`${where} refused the API key (${who}): HTTP ${list.status}: ${list.message}. Set a valid key in the environment variable ${group.apiKeyEnv}${env[group.apiKeyEnv] ? '' : ' (it is not set)'}.`);
				else if (list.problem === 'error') warnings.push(`${where} did not list its models (${list.status ? `HTTP ${list.status}: ` : ''}${list.message}); model names of the ${who} are not checked.`);
				return;
			}
			if (list.server === 'azure') return;
			for (const role of group.roles) {
				const model = settings.roles[role].model;
				if (modelListed(model, list) !== false) continue;
				const offered = list.models.map((entry) => entry.id);
				const near = nearMatches(model, offered, 3);
				const shown = offered.length > 12 ? `${offered.slice(0, 12).join(', ')} and ${offered.length - 12} more` : offered.join(', ') || 'none';
				problems.push(`The ${role} role's model '${model}' is not offered by ${where}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}; it offers: ${shown}. Set --${role}-model (or --model for every role).`);
			}
		}),
	);
	return {problems, warnings, lists};
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
