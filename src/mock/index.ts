import {registerMockGenerator} from '../llm/mockProvider.js';
import {mockBlueprint, mockBlueprintAudit} from './blueprint.js';
import {mockAssistant, mockSimulator} from './dialogue.js';
import {mockCandidateRatings, mockJudge} from './judge.js';
import {mockShards, mockShardsAudit} from './shards.js';
import {mockAdvisor, mockChronotope, mockExtract, mockGrounding, mockNormMatch, mockOutcome, mockPlanner, mockPolicy, mockQuestion, mockReasoner, mockReviser, mockReward, mockVerifier} from './situated.js';
import {mockTemplates} from './templates.js';

let registered = false;

/** Registers the offline generators for every stage with the mock provider (idempotent). */
export function registerMocks(): void {
	if (registered) return;
	registered = true;
	registerMockGenerator('blueprint', mockBlueprint);
	registerMockGenerator('blueprint-audit', mockBlueprintAudit);
	registerMockGenerator('shards', mockShards);
	registerMockGenerator('shards-audit', mockShardsAudit);
	registerMockGenerator('simulator', mockSimulator);
	registerMockGenerator('assistant', mockAssistant);
	registerMockGenerator('judge:', mockJudge);
	registerMockGenerator('templates', mockTemplates);
	registerMockGenerator('candidates', mockCandidateRatings);
	for (const [stage, generator] of Object.entries({chronotope: mockChronotope, question: mockQuestion, reasoner: mockReasoner, verifier: mockVerifier, advisor: mockAdvisor, planner: mockPlanner, reviser: mockReviser, policy: mockPolicy, outcome: mockOutcome, 'norm-match': mockNormMatch, grounding: mockGrounding, reward: mockReward, 'norm-extract': mockExtract})) {
		registerMockGenerator(`situated:${stage}`, generator);
	}
}
