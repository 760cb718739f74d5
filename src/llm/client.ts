import OpenAI, {AzureOpenAI} from 'openai';
import type {RoleSettings} from '../domain/session.js';
import {normalisingFetch} from './openaiFetch.js';
import {type Preset, presetOf} from './presets.js';

/** Where requests go when a role has no base URL (passed explicitly so the SDK never reads process.env itself). */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Azure's generally available api-version for the deployments URL, used when neither the URL nor the config names one. */
export const AZURE_API_VERSION = '2024-10-21';

/**
 * Placeholder key for keyless endpoints (a local vLLM or Ollama behind a base URL): the SDK refuses
 * to start without one. Settings resolution already rejects a hosted provider without a key.
 */
const KEYLESS = 'no-key';

export type ClientTarget = Pick<RoleSettings, 'baseURL' | 'preset' | 'dialect' | 'apiVersion'> & {
	readonly apiKey: string | undefined;
	readonly timeoutMs: number;
	readonly organization?: string | null;
	readonly project?: string | null;
};

/**
 * How an Azure base URL is reached. The v1 API (`https://RES.openai.azure.com/openai/v1/`) is the
 * OpenAI client with Azure's `api-key` header; anything else is the deployments URL
 * (`/openai/deployments/{deployment}/chat/completions?api-version=...`), spoken by the SDK's own
 * `AzureOpenAI` client: the resource root as `endpoint`, the deployment from the URL when it names
 * one (else the request's model, as Azure's docs use it), the api-version from the URL's query, else
 * the role's `apiVersion`, else 2024-10-21. A base URL with `?api-version=` is never glued to a path.
 */
export type AzureShape =
	| {readonly kind: 'v1'; readonly baseURL: string}
	| {readonly kind: 'deployments'; readonly endpoint: string; readonly deployment: string | null; readonly apiVersion: string};

export function azureShape(baseURL: string, apiVersion: string | undefined): AzureShape {
	const url = new URL(baseURL);
	const v1 = /^(.*?\/openai\/v1)(\/|$)/.exec(url.pathname);
	if (v1) return {kind: 'v1', baseURL: `${url.origin}${v1[1]}`};
	const deployment = /\/openai\/deployments\/([^/]+)/.exec(url.pathname)?.[1];
	return {kind: 'deployments', endpoint: url.origin, deployment: deployment ? decodeURIComponent(deployment) : null, apiVersion: url.searchParams.get('api-version') ?? apiVersion ?? AZURE_API_VERSION};
}

/**
 * The SDK client for a role's endpoint, in its provider's dialect: Azure's URL shapes and `api-key`
 * header, Anthropic's `x-api-key` (its model list needs it; its chat completions take the Bearer
 * token the SDK sends too), everyone else the plain OpenAI client. One attempt per call
 * (`maxRetries: 0`): the gateway's loop owns retries, their records and their events. Clients are
 * kept per target.
 */
export function createClientCache(): (target: ClientTarget) => OpenAI {
	const clients = new Map<string, OpenAI>();
	return (target) => {
		const id = JSON.stringify([target.baseURL, target.preset, target.dialect, target.apiVersion, target.apiKey, target.timeoutMs, target.organization, target.project]);
		let client = clients.get(id);
		if (!client) {
			client = openaiClient(target);
			clients.set(id, client);
		}
		return client;
	};
}

export function openaiClient(target: ClientTarget): OpenAI {
	const preset: Preset = presetOf(target);
	const apiKey = target.apiKey || KEYLESS;
	const common = {apiKey, maxRetries: 0, timeout: target.timeoutMs, organization: target.organization ?? null, project: target.project ?? null, fetch: normalisingFetch};
	const baseURL = target.baseURL ?? OPENAI_BASE_URL;
	if (preset.id === 'azure') {
		const shape = azureShape(baseURL, target.apiVersion);
		if (shape.kind === 'v1') return new OpenAI({...common, baseURL: shape.baseURL, defaultHeaders: {'api-key': apiKey}});
		// baseURL rather than endpoint: AzureOpenAI would otherwise read OPENAI_BASE_URL from the environment and refuse both.
		return new AzureOpenAI({...common, baseURL: `${shape.endpoint}/openai`, apiVersion: shape.apiVersion, ...(shape.deployment ? {deployment: shape.deployment} : {})});
	}
	if (preset.id === 'anthropic') return new OpenAI({...common, baseURL, defaultHeaders: {'x-api-key': apiKey, 'anthropic-version': '2023-06-01'}});
	return new OpenAI({...common, baseURL});
}
