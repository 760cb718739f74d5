import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {BlueprintDraft} from '../src/domain/blueprint.js';
import {candidateRatingsFor} from '../src/episode/candidates.js';
import {combinedJudgementFor, harmlessnessJudgementFor} from '../src/episode/judge.js';
import {fidelityForServer, noteServerKind, schemaFidelity, serverKindOf} from '../src/llm/schemaFidelity.js';
import {jsonSchemaFor, wireFormat} from '../src/llm/structured.js';
import {resolveRoleSettings} from '../src/llm/settings.js';
import {blueprintDraftFor} from '../src/pipeline/blueprint.js';
import {tempDir} from './helpers/tmp.js';

/** The oracle part a judge schema reads: one tripwire and one taboo (ids T1 and X1). */
const session = {
	blueprint: {
		oracle: {successCriteria: ['a b c d e'], failureCriteria: ['a b c d e'], taboos: [{description: 'no pork at the table', evidenceId: null}], tripwires: [{id: 'T1', description: 'serves alcohol', severity: 'high' as const, evidenceId: null}], friction: null},
	},
} as unknown as Parameters<typeof harmlessnessJudgementFor>[0];

describe('schema fidelity (issue 24 item 6)', () => {
	it('follows what each server kind documents for json_schema mode, and keeps everything when the schema is only prompt text', () => {
		// llama.cpp grammars/README.md "JSON Schemas → GBNF"; vLLM structured outputs; OpenAI Structured Outputs "Supported properties".
		assert.equal(fidelityForServer('llamacpp', 'json_schema'), 'enforced');
		assert.equal(fidelityForServer('vllm', 'json_schema'), 'enforced');
		for (const server of ['openai', 'azure', 'openrouter', 'ollama', 'compatible', null] as const) assert.equal(fidelityForServer(server, 'json_schema'), 'portable', String(server));
		assert.equal(fidelityForServer('openai', 'prompt'), 'enforced');
		assert.equal(fidelityForServer(null, 'json_object'), 'enforced');
	});

	it('enforced keeps string length limits; portable drops them and keeps enums, patterns and bounds', () => {
		const spec = {name: 'blueprint', schema: BlueprintDraft};
		const enforced = JSON.stringify(jsonSchemaFor(spec, 'enforced'));
		const portable = JSON.stringify(jsonSchemaFor(spec, 'portable'));
		assert.match(enforced, /"minLength":10/);
		assert.doesNotMatch(portable, /minLength|maxLength/);
		for (const text of [enforced, portable]) {
			assert.match(text, /"pattern":"\^T\\\\d\+\$"/);
			assert.match(text, /"enum":\["low","medium","high","critical"\]/);
		}
		assert.equal(jsonSchemaFor(spec, 'enforced'), jsonSchemaFor(spec, 'enforced'), 'converted once per schema and fidelity');
	});

	it('a role decides by its setting first, then by its provider preset or the kind its endpoint said it is', () => {
		const url = 'http://127.0.0.1:1/v1';
		assert.equal(serverKindOf({baseURL: url}), null);
		assert.equal(schemaFidelity({baseURL: url}, 'json_schema_strict'), 'portable', 'unknown kind: portable');
		assert.equal(schemaFidelity({baseURL: url, preset: 'llamacpp'}, 'json_schema'), 'enforced', '--provider llamacpp says it in every thread');
		noteServerKind(`${url}/`, 'llamacpp');
		assert.equal(serverKindOf({baseURL: url}), 'llamacpp');
		assert.equal(schemaFidelity({baseURL: url}, 'json_schema'), 'enforced');
		assert.equal(schemaFidelity({baseURL: url, schemaFidelity: 'portable'}, 'json_schema'), 'portable', 'the config file wins');
		assert.equal(serverKindOf({baseURL: null}), 'openai', 'no base URL is OpenAI');
		const format = wireFormat({name: 'blueprint', schema: BlueprintDraft}, 'json_schema', schemaFidelity({baseURL: url}, 'json_schema'));
		assert.ok(format.type === 'json_schema' && JSON.stringify(format.jsonSchema).includes('"minLength"'));
	});

	it('the config file chooses per role or for all; auto leaves it to the server kind', () => {
		const dir = tempDir();
		writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({baseURL: 'http://127.0.0.1:2/v1', model: 'm', schemaFidelity: 'enforced', roles: {judge: {schemaFidelity: 'portable'}, simulator: {schemaFidelity: 'auto'}}}));
		const {roles} = resolveRoleSettings({options: {}, env: {}, cwd: dir});
		assert.equal(roles.generator.schemaFidelity, 'enforced');
		assert.equal(roles.judge.schemaFidelity, 'portable');
		assert.equal(roles.simulator.schemaFidelity, undefined, 'auto: decided per call');
		assert.throws(() => resolveRoleSettings({options: {}, env: {}, cwd: (writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({schemaFidelity: 'strict'})), dir)}), /schemaFidelity/);
	});
});

describe('per-call schemas bound what the call knows', () => {
	it('best-of ratings: one per candidate, each naming a candidate from 1 to N', () => {
		const schema = candidateRatingsFor(2);
		const json = JSON.stringify(jsonSchemaFor({name: 'candidate_ratings', schema}, 'enforced'));
		assert.match(json, /"candidate":\{"type":"number","enum":\[1,2\]\}/);
		assert.match(json, /"minItems":2,"maxItems":2/);
		const rating = (candidate: number) => ({candidate, rationale: 'r', score: 3});
		assert.equal(schema.safeParse({ratings: [rating(1), rating(2)]}).success, true);
		assert.equal(schema.safeParse({ratings: [rating(1), rating(110)]}).success, false, 'candidate 110 of 2');
		assert.equal(schema.safeParse({ratings: [rating(1)]}).success, false, 'a candidate left out');
	});

	it('judge violations: only this oracle\'s ids; none at all when it has none', () => {
		const violation = (id: string) => ({id, evidence: 'turn 2'});
		const base = {rationale: 'long enough rationale', otherHarms: [], score: 4};
		const schema = harmlessnessJudgementFor(session);
		assert.match(JSON.stringify(jsonSchemaFor({name: 'judge_harmlessness', schema}, 'enforced')), /"enum":\["T1","X1"\]/);
		assert.equal(schema.safeParse({...base, violations: [violation('X1')]}).success, true);
		assert.equal(schema.safeParse({...base, violations: [violation('T9')]}).success, false);
		const empty = {blueprint: {oracle: {...session.blueprint!.oracle, taboos: [], tripwires: []}}} as unknown as typeof session;
		assert.match(JSON.stringify(jsonSchemaFor({name: 'judge_combined', schema: combinedJudgementFor(empty)}, 'portable')), /"violations":\{"maxItems":0/);
	});

	it('blueprint drafts cite only the evidence ids given, or null', () => {
		const hit = (id: string) => ({id}) as never;
		const schema = blueprintDraftFor({evidence: {cultural: [hit('cul-ph-1')], taboo: [hit('tab-ph-2')]} as never});
		assert.match(JSON.stringify(jsonSchemaFor({name: 'blueprint', schema}, 'enforced')), /"enum":\["cul-ph-1","tab-ph-2"\]/);
		const none = JSON.stringify(jsonSchemaFor({name: 'blueprint', schema: blueprintDraftFor({evidence: {cultural: [], taboo: []} as never})}, 'enforced'));
		assert.match(none, /"evidenceId":\{"type":"null"/);
	});
});
