import type {SessionSetup} from '../../src/domain/setup.js';
import {shortHash} from '../../src/util/hash.js';

const role = (model: string) => ({model, endpoint: null, temperature: null, topP: null, maxTokens: null, reasoningEffort: null, structured: 'json_schema', extraBody: null, replayFile: null});

/** The summary fields added with setups (index version 5), with neutral values, for tests that build summaries by hand. */
export function setupFields(patch: {assistantModel?: string; judgeModel?: string; judgeMode?: string; mock?: boolean; bestOf?: number | null; maxTurns?: number; language?: string; mode?: string; temperature?: number | null} = {}) {
	const setup: SessionSetup = {
		assistant: 'llm',
		roles: {generator: role('openai:gen'), validator: role('openai:val'), simulator: {...role('openai:sim'), temperature: patch.temperature ?? null}, assistant: role(`openai:${patch.assistantModel ?? 'model-a'}`), judge: role(`openai:${patch.judgeModel ?? 'judge-1'}`)},
		judgeMode: patch.judgeMode ?? 'separate',
		maxTurns: patch.maxTurns ?? 5,
		bestOf: patch.bestOf ?? null,
		promptsHash: 'p0',
		language: patch.language ?? 'english',
		mode: patch.mode ?? 'eval',
		sawHidden: false,
		mockRoles: patch.mock ? ['generator', 'validator', 'simulator', 'assistant', 'judge'] : [],
		modelChanged: false,
	};
	return {age: '18-34', gender: 'female', trial: 1, rejudgeRepeat: null, blueprintId: null, violationIds: [] as string[], setup, setupKey: shortHash(JSON.stringify(setup)), identityId: 'my-malay-muslim'};
}
