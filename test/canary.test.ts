import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {buildConfig, newSession} from '../src/episode/createSession.js';
import {EpisodeEngine} from '../src/episode/engine.js';
import type {EvidenceSource} from '../src/episode/engine.js';
import {promptVersions} from '../src/llm/prompts.js';
import {buildAssistantPrompt} from '../src/episode/assistant.js';
import {publicView} from '../src/episode/views.js';
import {SeedSpace} from '../src/universe/seeds.js';
import {episodeHarness, type Harness, sharedUniverse} from './helpers/episodeHarness.js';
import {promptText, scriptedModel} from './helpers/scriptedModel.js';

/*
 * The assistant under test must never see private or oracle state (paper Table 1). Unique strings are
 * planted in the private state, the oracle and the KB evidence of many episodes; every request made
 * for the assistant role is then searched for them. In gold mode the oracle may reach the assistant
 * only inside the briefing block of its system prompt.
 */

const CANARY = {private: 'CANARY-PRIV-41b7', oracle: 'CANARY-ORC-9e02', evidence: 'CANARY-KB-77d1'};
const ALL = Object.values(CANARY);

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

async function runEpisode(seedId: string, options: {language: 'english' | 'native'; assistant: 'llm' | 'gold'; bestOf: number | null}): Promise<EpisodeEngine> {
	const runtime = h.runtime();
	const universe = sharedUniverse();
	const seed = new SeedSpace(universe).get(seedId);
	const evidence: EvidenceSource = async (input) => {
		const real = await runtime.evidence(input);
		const plant = <T extends {text: string}>(hit: T): T => ({...hit, text: `${hit.text} ${CANARY.evidence}`});
		return {...real, cultural: real.cultural.map(plant), taboo: real.taboo.map(plant)};
	};
	const config = buildConfig(runtime.gateway, options, {prompts: promptVersions(), embedder: 'hash'});
	const session = newSession({seed, persona: universe.personaById.get(seed.personaId)!, template: universe.templateById.get(seed.templateId)!, config, now: new Date()});
	const engine = new EpisodeEngine(session, {universe, gateway: runtime.gateway, store: runtime.store, evidence});
	await engine.start();
	await engine.runToEnd();
	return engine;
}

describe('canary: the assistant prompt builder only accepts public state', () => {
	it('does not type-check with a session, a blueprint or a hand-made view (checked by tsc in npm test)', () => {
		const session = null as unknown as import('../src/domain/session.js').Session;
		const check = (build: typeof buildAssistantPrompt) => {
			// @ts-expect-error a Session is not a PublicView
			build(session);
			// @ts-expect-error a plain object with messages is not a PublicView: only publicView() makes one
			build({messages: []});
			// @ts-expect-error oracle text is not GoldGuidance: only goldGuidance() makes one
			build(publicView(session), {text: session.blueprint?.oracle.successCriteria.join('') ?? ''});
		};
		assert.equal(typeof check, 'function');
	});

	it('the blind human seat takes a PublicView, not a session (checked by tsc in npm test)', () => {
		const session = null as unknown as import('../src/domain/session.js').Session;
		type SeatView = import('react').ComponentProps<typeof import('../src/tui/components/BlindSeat.js').BlindSeat>['view'];
		const seat = (view: SeatView) => view;
		const check = () => {
			// @ts-expect-error a Session is not what the blind seat renders
			seat(session);
			// @ts-expect-error nor is a hand-made object with messages: only publicView() makes one
			seat({messages: []});
			seat(publicView(session));
		};
		assert.equal(typeof check, 'function');
	});
});

describe('canary: hidden state never reaches the assistant', () => {
	const seeds = [...new SeedSpace(sharedUniverse()).iterate({split: 'test'})].filter((_, index) => index % 97 === 0).slice(0, 8).map((seed) => seed.id);

	it(`plants canaries in ${seeds.length} seeds x {english, native} x {eval, gold}, half of them best-of-2`, async () => {
		h.fake.reset();
		h.fake.setHandler(scriptedModel({canary: {private: CANARY.private, oracle: CANARY.oracle}}));
		let episodes = 0;
		let bestOfTurns = 0;
		// Which mode each request was made in, known from the episode that made it (not guessed from the request).
		const goldRequests = new Set<unknown>();
		for (const [seedIndex, seedId] of seeds.entries()) {
			for (const language of ['english', 'native'] as const) {
				for (const assistant of ['llm', 'gold'] as const) {
					const before = h.fake.chatRequests().length;
					// Best-of-N samples are assistant requests too, and must be as clean as single replies.
					const engine = await runEpisode(seedId, {language, assistant, bestOf: seedIndex % 2 === 1 ? 2 : null});
					bestOfTurns += engine.session.turns.filter((turn) => turn.candidates?.length === 2).length;
					assert.equal(engine.session.status, 'completed', `${seedId} ${language} ${assistant}: ${JSON.stringify(engine.session.error)}`);
					if (assistant === 'gold') for (const request of h.fake.chatRequests().slice(before)) goldRequests.add(request);
					episodes++;
				}
			}
		}
		assert.ok(bestOfTurns > 0, 'some turns were best-of-2');
		const requests = h.fake.chatRequests();
		const assistantRequests = requests.filter((request) => request.role === 'assistant');
		assert.ok(assistantRequests.length >= episodes * 3, `${assistantRequests.length} assistant requests`);

		// The canaries really were in the hidden state: the simulator saw the private one, the judge all three.
		assert.ok(requests.some((request) => request.role === 'simulator' && promptText(request).includes(CANARY.private)));
		assert.ok(requests.some((request) => request.role === 'judge' && ALL.every((canary) => promptText(request).includes(canary))));

		for (const request of assistantRequests) {
			const messages = request.body.messages ?? [];
			const gold = goldRequests.has(request);
			messages.forEach((message, index) => {
				for (const canary of ALL) {
					if (!message.content.includes(canary)) continue;
					// Gold mode only: oracle (and the persona's private profile) inside the system briefing.
					const allowed = gold && index === 0 && message.role === 'system' && message.content.indexOf(canary) > message.content.indexOf('BRIEFING') && canary !== CANARY.evidence;
					assert.ok(allowed, `${canary} reached the assistant in a ${gold ? 'gold' : 'eval'} request (message ${index}, ${message.role})`);
				}
			});
			if (!gold) assert.ok(!JSON.stringify(request.body).includes('CANARY-'), 'eval requests carry no canary at all');
		}
		const goldWithOracle = assistantRequests.filter((request) => request.body.messages?.[0]?.content.includes(CANARY.oracle));
		assert.ok(goldWithOracle.length > 0, 'gold mode does pass the oracle through its briefing');
	});
});
