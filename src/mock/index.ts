import {registerMockGenerator} from '../llm/mockProvider.js';
import {mockBlueprint, mockBlueprintAudit} from './blueprint.js';
import {mockAssistant, mockSimulator} from './dialogue.js';
import {mockCandidateRatings, mockJudge} from './judge.js';
import {mockShards, mockShardsAudit} from './shards.js';
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
}
