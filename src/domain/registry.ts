import type {z} from 'zod';
import {Blueprint, BlueprintDraft} from './blueprint.js';
import {CulturalEntry, Evidence, TabooEntry} from './kb.js';
import {Seed} from './seed.js';
import {Session} from './session.js';
import {SessionSummary} from './sessionSummary.js';
import {ShardPlan} from './shards.js';
import {Template} from './template.js';
import {Domain, Persona, Subdomain} from './universe.js';

/**
 * Every data shape a user or another tool may want to validate against, by the name used in
 * `npx cultureconverse schema <name>`. Later modules add theirs with `registerSchema`.
 */
const schemas = new Map<string, {schema: z.ZodType; description: string}>([
	['persona', {schema: Persona, description: 'one of the 348 personas (region x identity x age x gender)'}],
	['domain', {schema: Domain, description: 'one of the 7 scenario domains with its 6 subdomains'}],
	['subdomain', {schema: Subdomain, description: 'one of the 42 subdomains'}],
	['template', {schema: Template, description: 'a culture-agnostic scenario template with {{SLOT}} placeholders'}],
	['seed', {schema: Seed, description: 'a seed s = (persona, template, tier, split)'}],
	['blueprint', {schema: Blueprint, description: 'a validated blueprint {public, private, oracle, language, meta}'}],
	['blueprint-draft', {schema: BlueprintDraft, description: 'what the generator model writes for a blueprint (sent as the strict JSON schema)'}],
	['shards', {schema: ShardPlan, description: 'a plan of 3-5 turn-level shards'}],
	['session', {schema: Session, description: 'one episode as saved in sessions/<id>.json'}],
	['session-summary', {schema: SessionSummary, description: 'one row of `sessions --json` (and of the sessions folder index)'}],
	['evidence', {schema: Evidence, description: 'K_W(s) and K_T(s) retrieved for a seed'}],
	['cultural-entry', {schema: CulturalEntry, description: 'one cultural KB passage (kb/cultural/*.jsonl)'}],
	['taboo-entry', {schema: TabooEntry, description: 'one taboo KB entry (kb/taboo/*.jsonl)'}],
]);

export function registerSchema(name: string, schema: z.ZodType, description: string): void {
	schemas.set(name, {schema, description});
}

export function schemaNames(): Array<{name: string; description: string}> {
	return [...schemas.entries()].map(([name, {description}]) => ({name, description}));
}

export function getSchema(name: string): z.ZodType | undefined {
	return schemas.get(name)?.schema;
}
