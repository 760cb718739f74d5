import {z} from 'zod';
import {ModelRole, type RoleSettings} from '../domain/session.js';
import {shortHash} from '../util/hash.js';
import {setupAdvice} from './advice.js';
import {type CapabilityPatch, capabilitiesFile, createCapabilityStore} from './capabilities.js';
import {type ModelList, OLLAMA_DEFAULT_CONTEXT, type ServerKind, llamaCppContext, modelListed, ollamaContext} from './endpoint.js';
import {createGateway, gatewayOptions} from './gateway.js';
import {familyOf} from './modelFamily.js';
import {checkSetup} from './preflight.js';
import {PRESETS} from './presets.js';
import type {ModelSettings} from './settings.js';
import {type CallEvent, type ModelGateway, ModelCallError, SETUP_FAILURES} from './types.js';

/**
 * The context a role's prompts need, with room to answer: the judge's and blueprint prompts run to
 * about 3,000-6,000 tokens with evidence and a five-turn transcript, plus the reply.
 */
export const CONTEXT_NEEDED = 8192;

/** Each probe's limits: a small token cap (a thinking model gets room to think) and a time limit. A probe that hits either proves nothing. */
export const PROBE_LIMITS = {chatTokens: 256, reasoningTokens: 2048, timeoutMs: 30_000} as const;

/**
 * Whether a role is shown to work: `works` only after a real call in the mode the run will use
 * succeeded; `fails` when the set-up cannot work (a problem says what to change); `unchecked` when
 * nothing proved it either way (a timeout, an unreachable server, a 5xx, a cut or invalid probe
 * reply), with the reason; `offline` for the mock and replay providers, which need no server.
 */
export type RoleStatus = 'works' | 'fails' | 'unchecked' | 'offline';

/** One role's checks. A check is null when it was not run (an earlier one failed, or it does not apply). */
export type RoleCheck = {
	readonly role: ModelRole;
	readonly provider: RoleSettings['provider'];
	readonly model: string;
	readonly endpoint: string | null;
	/** The provider preset the endpoint is spoken to as (or the mock/replay provider). */
	readonly server: string;
	/** True when `server` was guessed (from the host or the model list), not set with --provider. */
	readonly serverGuessed: boolean;
	readonly reachable: boolean | null;
	/** Null when unknown: the server did not answer, so the key was never tried. */
	readonly auth: boolean | null;
	/** `unlisted`: the server's list cannot say (Azure lists base models, not deployments). */
	readonly listed: boolean | 'any' | 'unlisted' | null;
	/** The structured call in the run's mode: the mode that worked (after any step down) and the modes the server refused on the way. */
	readonly structured: {readonly mode: string; readonly ok: boolean; readonly detail: string; readonly refused: readonly string[]} | null;
	readonly streaming: 'yes' | 'refused' | 'off' | 'failed' | null;
	/** Whether the replies carried thinking text (in content or in a reasoning field). */
	readonly reasoning: 'in content' | 'in a field' | 'none' | null;
	readonly supportsN: boolean | null;
	/** Usage came back in the stream (`stream_options.include_usage`). */
	readonly includeUsage: boolean | null;
	/** The role's reasoningEffort was accepted (null: the role sets none, or it was not tried). */
	readonly reasoningEffort: boolean | null;
	readonly latencyMs: number | null;
	readonly contextWindow: number | null;
	readonly contextSource: string | null;
	readonly status: RoleStatus;
	/** Why a role is `fails` or `unchecked`. */
	readonly statusReason: string | null;
};

export type DoctorReport = {
	readonly roles: readonly RoleCheck[];
	/** Set-ups that cannot work: each with what to change. */
	readonly problems: readonly string[];
	/** Set-ups that work but are likely to hurt results or cost. */
	readonly warnings: readonly string[];
	/** Roles not shown to work (`fails` or `unchecked`): `doctor` exits 2 while any is left, unless --allow-unchecked accepts the unchecked ones. */
	readonly notShown: readonly ModelRole[];
	/** Where the negotiated capabilities were recorded for later runs (null: not written). */
	readonly capabilitiesFile: string | null;
};

const Probe = z.strictObject({ok: z.boolean(), word: z.string()});

/**
 * Checks every role of a set-up against its server, all at once, so one run names every
 * misconfiguration: an unset role, an unreachable endpoint, a refused key, an unknown model or
 * deployment, a call that fails in the mode the run will use (structured roles: the negotiated
 * structured mode; the assistant: a streamed free-text reply and `n`), thinking text in replies, a
 * context window too small for the tool's prompts, settings dropped for a model family, a quota
 * that is spent. Probes carry a small token cap and a time limit, are never cached, and what they
 * find is recorded per endpoint and model (capabilities.ts) for `run`, `batch` and the TUI.
 */
export async function runDoctor(settings: ModelSettings, context: {env: NodeJS.ProcessEnv; workspaceDir: string; roles?: readonly ModelRole[]}): Promise<DoctorReport> {
	const roles = context.roles ?? ModelRole.options;
	const problems: string[] = [];
	const warnings: string[] = [];
	for (const role of settings.unset.filter((unsetRole) => roles.includes(unsetRole))) {
		problems.push(`The ${role} role has no model on ${settings.roles[role].baseURL ?? 'its endpoint'} (only OpenAI's own endpoint has a default): set --model NAME for every role, or --${role}-model.`);
	}
	for (const role of roles) for (const notice of settings.roles[role].notices ?? []) warnings.push(`${role}: ${notice}.`);
	const setup = await checkSetup(settings, roles, context.env);
	problems.push(...setup.problems);
	warnings.push(...setup.warnings);
	const listFor = (role: ModelRole): ModelList | null => setup.lists.find(({group}) => group.roles.includes(role))?.list ?? null;
	// Probes start from nothing known (a fresh, in-memory record) and go through the gateway, so they
	// follow the same parameter rules and step-downs as real work; what they find is written after.
	const probed = createCapabilityStore(null);
	const gateway = createGateway({...gatewayOptions({...settings, cache: false, retry: {maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0}, validationRetries: 1, record: null}, {env: context.env, workspaceDir: context.workspaceDir}), cache: false, capabilities: probed});
	const found: Array<{settings: RoleSettings; patch: CapabilityPatch}> = [];
	const checks = await Promise.all(
		roles.map(async (role): Promise<RoleCheck> => {
			const role_ = settings.roles[role];
			const base: RoleCheck = {role, provider: role_.provider, model: role_.model, endpoint: role_.baseURL, server: role_.provider === 'openai' ? (role_.preset ?? 'compatible') : role_.provider, serverGuessed: role_.presetGuessed === true, reachable: null, auth: null, listed: null, structured: null, streaming: null, reasoning: null, supportsN: null, includeUsage: null, reasoningEffort: null, latencyMs: null, contextWindow: null, contextSource: null, status: 'offline', statusReason: null};
			if (role_.provider !== 'openai') return base;
			if (role_.model === '') return {...base, status: 'fails', statusReason: 'no model is set'};
			const list = listFor(role);
			const server: ServerKind = list?.server ?? role_.preset ?? 'compatible';
			const reachable = list ? list.ok || list.problem !== 'unreachable' : null;
			const auth = list ? (list.ok ? true : list.problem === 'auth' ? false : list.problem === 'unreachable' ? null : null) : null;
			const listed = list?.ok ? modelListed(role_.model, list) : null;
			let check: RoleCheck = {...base, server, serverGuessed: list?.guessed ?? base.serverGuessed, reachable, auth, listed};
			if (reachable === false) return {...check, status: 'unchecked', statusReason: `the server did not answer (${list && !list.ok ? list.message : 'unreachable'}), so no call was made`};
			if (auth === false) return {...check, status: 'fails', statusReason: 'the key was refused'};
			if (listed === false) return {...check, status: 'fails', statusReason: 'the model is not offered'};
			check = {...check, ...(await contextOf(role_, list))};
			const outcome = await probeRole(gateway, role, role_, settings);
			for (const message of outcome.problems) problems.push(message);
			for (const message of outcome.warnings) warnings.push(message);
			found.push({settings: role_, patch: outcome.patch});
			// A call that went through proves the key even where the list did not answer.
			return {...check, ...outcome.check, auth: check.auth ?? (outcome.check.status === 'works' ? true : null)};
		}),
	);
	const file = capabilitiesFile(context.workspaceDir);
	const store = createCapabilityStore(file);
	for (const {settings: role_, patch} of found) if (Object.keys(patch).length > 0) store.learn(role_, patch, 'probed');
	warnings.push(...groupedWarnings(checks, settings));
	const notShown = checks.filter((check) => check.status === 'fails' || check.status === 'unchecked').map((check) => check.role);
	return {roles: checks, problems: [...new Set(problems)], warnings: [...new Set(warnings)], notShown, capabilitiesFile: found.length > 0 ? file : null};
}

/** One warning per finding, naming every role it applies to (five roles on one server say it once). */
function groupedWarnings(checks: readonly RoleCheck[], settings: ModelSettings): string[] {
	const grouped = new Map<string, {roles: ModelRole[]; text: (who: string) => string}>();
	const note = (key: string, role: ModelRole, text: (who: string) => string) => {
		const entry = grouped.get(key) ?? {roles: [], text};
		entry.roles.push(role);
		grouped.set(key, entry);
	};
	for (const check of checks) {
		if (check.provider !== 'openai') continue;
		const preset = PRESETS[check.server as ServerKind] ?? PRESETS.compatible;
		// Only a kind guessed from the host, or none found, is worth a --provider: a server that said what
		// it is (endpoint.ts listModels) is not a guess.
		if (check.serverGuessed && check.endpoint !== null && check.reachable !== false) {
			const taken = check.server === 'compatible' ? 'an OpenAI-compatible server of no known kind' : `${preset.label} (from its host)`;
			note(`guess|${check.endpoint}`, check.role, (who) => `${check.endpoint} (the ${who} endpoint) was taken for ${taken}: set --provider ${check.server === 'compatible' ? 'NAME' : check.server} (or "provider" in the config) to be sure (docs/providers.md lists them).`);
		}
		if (check.contextWindow !== null && check.contextWindow < CONTEXT_NEEDED) {
			note(`context|${check.model}|${check.endpoint}`, check.role, (who) => `The ${who} model ${check.model} runs with a ${check.contextWindow}-token context (${check.contextSource}); the tool's judge and blueprint prompts need about ${CONTEXT_NEEDED}: ${preset.id === 'llamacpp' ? 'start llama-server with -c 16384 or more; its slots share that context (-c 16384 -np 2 gives each request 8192)' : preset.contextFix}.`);
		}
		if (check.reasoning === 'in content') note(`think|${check.model}|${check.endpoint}`, check.role, (who) => `The ${who} replies carry thinking text (<think> or <thought> blocks) in their content: it is removed and kept on the call records, but it costs tokens and time. ${capitalise(preset.thinkFix)}.`);
		if (check.streaming === 'refused') note(`stream|${check.model}|${check.endpoint}`, check.role, (who) => `${check.endpoint ?? 'OpenAI'} refuses to stream ${check.model} for this account: the ${who} calls will ask for whole replies (set "stream": false to skip the refused attempt).`);
		if (check.role === 'assistant' && check.supportsN === true && settings.roles.assistant.supportsN !== true) note('n', check.role, () => `The assistant's server returns several choices per request: best-of-N will ask once per turn with n (recorded for this endpoint); set "supportsN": false to ask N times instead.`);
		if (check.role === 'assistant' && check.supportsN === false && settings.roles.assistant.supportsN === true) note('n-refused', check.role, () => `"supportsN": true is set for the assistant, but its server does not return several choices: best-of-N falls back to N requests per turn (set "supportsN": false to skip the refused request).`);
		if (check.structured && check.structured.refused.length > 0 && check.structured.ok) note(`fell|${check.model}|${check.endpoint}`, check.role, (who) => `${check.endpoint ?? 'The endpoint'} refused structured mode ${check.structured!.refused.join(' and ')} for ${check.model}: the ${who} calls use ${check.structured!.mode} (recorded, so runs start there).`);
	}
	return [...grouped.values()].map(({roles: which, text}) => text(`${which.join(', ')} role${which.length > 1 ? "s'" : "'s"}`));
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

async function contextOf(settings: RoleSettings, list: ModelList | null): Promise<Pick<RoleCheck, 'contextWindow' | 'contextSource'>> {
	if (!list?.ok || !settings.baseURL) return {contextWindow: null, contextSource: null};
	if (list.server === 'ollama') {
		const found = await ollamaContext(settings.baseURL, settings.model);
		return {contextWindow: found.effective, contextSource: found.source === 'default' ? `Ollama's default: OLLAMA_CONTEXT_LENGTH unset or ${OLLAMA_DEFAULT_CONTEXT}` : found.source === 'modelfile' ? 'num_ctx in the Modelfile' : found.source === 'loaded' ? 'the loaded model' : null};
	}
	if (list.server === 'llamacpp') {
		const nCtx = await llamaCppContext(settings.baseURL);
		return {contextWindow: nCtx, contextSource: nCtx === null ? null : 'llama-server n_ctx per slot'};
	}
	const entry = list.models.find((model) => model.id === settings.model);
	return {contextWindow: entry?.contextWindow ?? null, contextSource: entry?.contextWindow ? `${list.server} model list` : null};
}

type ProbeOutcome = {readonly check: Partial<RoleCheck> & Pick<RoleCheck, 'status' | 'statusReason'>; readonly problems: string[]; readonly warnings: string[]; readonly patch: CapabilityPatch};

/**
 * The calls the run will make for this role, small: the assistant streams free text (and is asked
 * for `n` = 2), every other role makes a structured call in its negotiated mode. A failure with the
 * role's extraBody is tried again without it, to say which one failed.
 */
async function probeRole(gateway: ModelGateway, role: ModelRole, settings: RoleSettings, all: ModelSettings): Promise<ProbeOutcome> {
	const cap = familyOf(settings) === 'reasoning' ? PROBE_LIMITS.reasoningTokens : PROBE_LIMITS.chatTokens;
	const limited: RoleSettings = {...settings, maxTokens: Math.min(settings.maxTokens ?? cap, cap), timeoutMs: Math.min(settings.timeoutMs, PROBE_LIMITS.timeoutMs)};
	const problems: string[] = [];
	const warnings: string[] = [];
	const patch: {-readonly [K in keyof CapabilityPatch]: CapabilityPatch[K]} = {};
	const notices: string[] = [];
	const onEvent = (event: CallEvent) => {
		if (event.type === 'notice') notices.push(event.message);
	};
	const prompt = (id: string, text: string) => ({id: `doctor/${id}`, messages: [{role: 'system' as const, content: 'You are checking that a connection works. Answer briefly.'}, {role: 'user' as const, content: text}], hash: shortHash(text)});
	const out: {-readonly [K in keyof RoleCheck]?: RoleCheck[K]} = {};
	let sawReasoning: RoleCheck['reasoning'] = 'none';
	const noteReasoning = (call: {reasoningIn?: 'content' | 'field'}) => {
		if (call.reasoningIn === 'content') sawReasoning = 'in content';
		else if (call.reasoningIn === 'field' && sawReasoning === 'none') sawReasoning = 'in a field';
	};
	const what = role === 'assistant' ? `streamed reply${settings.stream === false ? ' (whole: "stream" is false)' : ''}` : `structured call (${settings.structured})`;
	const runMode = async (with_: RoleSettings) =>
		role === 'assistant'
			? gateway.call<string>({role, settings: with_, stage: 'doctor:assistant', prompt: prompt('stream', 'Say "ready" and nothing else.'), onToken: () => undefined, mock: null, step: 0, onEvent})
			: gateway.call({role, settings: with_, stage: 'doctor:structured', prompt: prompt('structured', 'Reply with a JSON object: "ok" true and "word" "ready".'), schema: {name: 'doctor_probe', schema: Probe}, mock: null, step: 0, onEvent});

	const started = Date.now();
	let status: RoleStatus = 'works';
	let statusReason: string | null = null;
	try {
		const response = await runMode(limited);
		out.latencyMs = Date.now() - started;
		noteReasoning(response.call);
		if (role === 'assistant') {
			out.streaming = settings.stream === false ? 'off' : notices.some((notice) => /refused to stream/.test(notice)) ? 'refused' : response.call.streamed === false ? 'off' : 'yes';
			// Usage in the stream proves stream_options is taken; a refusal (a step-down notice) that it is not; a server that takes it and sends no usage (Ollama) decides nothing.
			const usageRefused = notices.some((notice) => /refused stream_options/.test(notice));
			out.includeUsage = usageRefused ? false : response.call.streamed && response.call.tokensEstimated !== true ? true : null;
			if (out.includeUsage !== null) patch.includeUsage = out.includeUsage;
			if (out.streaming === 'yes') patch.stream = true;
			if (out.streaming === 'refused') patch.stream = false;
		} else {
			out.structured = {mode: response.call.structuredMode ?? settings.structured, ok: true, detail: String((response.value as z.infer<typeof Probe>).word), refused: refusedModes(notices)};
			if (response.call.structuredMode) patch.structured = response.call.structuredMode;
		}
		if (settings.reasoningEffort) out.reasoningEffort = patch.reasoningEffort = true;
	} catch (error) {
		if (!(error instanceof ModelCallError)) throw error;
		out.latencyMs = Date.now() - started;
		const reason = error.call.error ?? error.message;
		if (role !== 'assistant') out.structured = {mode: error.call.structuredMode ?? settings.structured, ok: false, detail: error.kind, refused: refusedModes(notices)};
		else out.streaming = error.kind === 'stream_refused' ? 'refused' : 'failed';
		if (error.refused === 'reasoning_effort') out.reasoningEffort = patch.reasoningEffort = false;
		const withoutExtra = settings.extraBody && Object.keys(settings.extraBody).length > 0 && (error.kind === 'bad_request' || error.kind === 'invalid_output') ? await tryWithout(runMode, limited) : null;
		if (withoutExtra === 'works') {
			status = 'fails';
			statusReason = `fails with the role's extraBody, works without it`;
			problems.push(`The ${role} role's ${what} fails with its extraBody (${Object.keys(settings.extraBody!).join(', ')}) and works without it: ${reason}. Remove or correct those extraBody keys for the ${role} role${role === 'assistant' ? '' : ' (a vLLM guided_json, for one, forces another schema on every structured call)'}.`);
		} else if (SETUP_FAILURES.has(error.kind)) {
			status = 'fails';
			statusReason = `${error.kind}: ${reason}`;
			problems.push(`The ${role} role's ${what} failed: ${reason}. ${setupAdvice(error.kind, role, settings, all.apiKeyEnv[role], reason)}`);
		} else {
			status = 'unchecked';
			statusReason = error.kind === 'timeout' ? `no reply within ${limited.timeoutMs / 1000} s (the probe's time limit)` : `${error.kind}: ${reason}`;
			warnings.push(`The ${role} role is unchecked: its ${what} did not succeed (${statusReason})${error.kind === 'truncated' ? ` within the probe's ${limited.maxTokens}-token cap` : ''}${error.kind === 'content_filter' ? '; the provider\'s content filter blocked the probe' : ''}.`);
		}
	}
	if (role === 'assistant' && status === 'works') {
		try {
			const choices = await gateway.call<string>({role, settings: limited, stage: 'doctor:n', prompt: prompt('n', 'Name one colour.'), n: 2, mock: null, step: 0, onEvent});
			out.supportsN = (choices.texts?.length ?? 1) >= 2;
			noteReasoning(choices.call);
		} catch (error) {
			if (!(error instanceof ModelCallError)) throw error;
			// A refusal says no; a timeout or a 5xx says nothing.
			out.supportsN = error.kind === 'bad_request' || error.refused === 'n' ? false : null;
		}
		if (out.supportsN !== null && out.supportsN !== undefined) patch.n = out.supportsN;
	}
	out.reasoning = sawReasoning;
	return {check: {...out, status, statusReason}, problems, warnings, patch};
}

/** The modes the server refused on the way to one that worked, from the step-down notices. */
function refusedModes(notices: readonly string[]): string[] {
	return notices.map((notice) => /refused structured mode (\S+)/.exec(notice)?.[1]).filter((mode): mode is string => mode !== undefined);
}

async function tryWithout(runMode: (settings: RoleSettings) => Promise<unknown>, settings: RoleSettings): Promise<'works' | 'fails'> {
	const {extraBody: _dropped, ...rest} = settings;
	try {
		await runMode(rest);
		return 'works';
	} catch (error) {
		if (!(error instanceof ModelCallError)) throw error;
		return 'fails';
	}
}
