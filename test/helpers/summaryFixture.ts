import type {SessionSetup} from '../../src/domain/sessionSummary.js';
import {shortHash} from '../../src/util/hash.js';

/** The summary fields added with setups (index version 4), with neutral values, for tests that build summaries by hand. */
export function setupFields(patch: {assistantModel?: string; judgeModel?: string; judgeMode?: string; mock?: boolean; bestOf?: number | null; maxTurns?: number} = {}) {
	const setup: SessionSetup = {
		assistant: 'llm',
		models: {generator: 'openai:gen', validator: 'openai:val', simulator: 'openai:sim', assistant: `openai:${patch.assistantModel ?? 'model-a'}`, judge: `openai:${patch.judgeModel ?? 'judge-1'}`},
		endpoints: {generator: null, validator: null, simulator: null, assistant: null, judge: null},
		judgeMode: patch.judgeMode ?? 'separate',
		maxTurns: patch.maxTurns ?? 5,
		bestOf: patch.bestOf ?? null,
		promptsHash: 'p0',
		sawHidden: false,
		mockRoles: patch.mock ? ['generator', 'validator', 'simulator', 'assistant', 'judge'] : [],
		modelChanged: false,
	};
	return {age: '18-34', gender: 'female', trial: 1, rejudgeRepeat: null, blueprintId: null, violationIds: [] as string[], setup, setupKey: shortHash(JSON.stringify(setup))};
}
