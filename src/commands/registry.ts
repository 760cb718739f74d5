import type {Command} from './types.js';

/**
 * Every command of the binary, in the order the help screen lists them: the name and summary the
 * help screen shows, and how to load the command itself. Commands load only when run, so `--help`
 * and a command's first moments pay for nothing but what that command uses (the whole set of
 * commands once cost 1.4 s of CPU to import: report charts, importers, the reward-model code).
 */
export type CommandEntry = {readonly name: string; readonly summary: string; readonly load: () => Promise<Command>};

export const COMMANDS: readonly CommandEntry[] = [
	{name: 'run', summary: 'Run one episode headless: blueprint, shards, dialogue, judge; saved after every step', load: async () => {
		return (await import('./run.js')).runCommand;
	}},
	{name: 'batch', summary: 'Run many episodes headless, in parallel, resumable by name; `batch status|list` show where batches stand', load: async () => {
		return (await import('./batch.js')).batchCommand;
	}},
	{name: 'worker', summary: 'Work on distributed batches from a Redis queue (batch --queue): take episodes, run them, stream their steps and send the sessions back', load: async () => {
		return (await import('./worker.js')).workerCommand;
	}},
	{name: 'report', summary: 'Benchmark tables from saved sessions: 3H, TDQ, clean rate and the six metrics with intervals, sliced, setups kept apart', load: async () => {
		return (await import('./report.js')).reportCommand;
	}},
	{name: 'view', summary: 'Session viewer as static HTML: the three partitions side by side, a step slider, judge rationales, every model call', load: async () => {
		return (await import('./view.js')).viewCommand;
	}},
	{name: 'rejudge', summary: 'Score saved dialogues again with another judge model or mode (copies; the originals stay) and compare the judges', load: async () => {
		return (await import('./rejudge.js')).rejudgeCommand;
	}},
	{name: 'export', summary: 'Training data from saved sessions: `export sft` (chat JSONL) and `export pairs` (best-of-N preference pairs)', load: async () => {
		return (await import('./export.js')).exportCommand;
	}},
	{name: 'crisp', summary: 'Situated decision items (CRISP): norms → settings → refined questions; eval with outcome, norm match, a reward model\'s best-of-N; trainer-ready pairs', load: async () => {
		return (await import('./crisp.js')).crispCommand;
	}},
	{name: 'doctor', summary: 'Check the model set-up of every role against its server: reachable, key, model listed, structured replies, streaming, thinking text, context window', load: async () => {
		return (await import('./doctor.js')).doctorCommand;
	}},
	{name: 'tui', summary: 'Open the terminal UI; with --persona and --template, straight into a new episode', load: async () => {
		return (await import('./tui.js')).tuiCommand;
	}},
	{name: 'replay', summary: 'Replay a saved session in the TUI (step back and forth); --print writes it to stdout', load: async () => {
		return (await import('./replay.js')).replayCommand;
	}},
	{name: 'sessions', summary: 'List saved sessions (status, persona, template, tier, language, 3H, TDQ, clean, date)', load: async () => {
		return (await import('./sessions.js')).sessionsCommand;
	}},
	{name: 'blueprint', summary: 'Run the blueprint stage alone for a seed: evidence, then public / private / oracle state', load: async () => {
		return (await import('./stages.js')).blueprintCommand;
	}},
	{name: 'shards', summary: 'Run the shard stage for a seed (the blueprint comes from the response cache when it was made before)', load: async () => {
		return (await import('./stages.js')).shardsCommand;
	}},
	{name: 'personas', summary: 'List the 348 personas (58 identities x 3 age cohorts x 2 genders)', load: async () => {
		return (await import('./personas.js')).personasCommand;
	}},
	{name: 'domains', summary: 'List the 7 domains and their 42 subdomains', load: async () => {
		return (await import('./domains.js')).domainsCommand;
	}},
	{name: 'templates', summary: 'List scenario templates; `templates show <id>` prints one in full', load: async () => {
		await import('./templatesGenerate.js');
		return (await import('./templates.js')).templatesCommand;
	}},
	{name: 'seeds', summary: 'List seeds (persona x template, with tier and split); `seeds count` counts them', load: async () => {
		return (await import('./seeds.js')).seedsCommand;
	}},
	{name: 'seed', summary: 'Resolve one seed id to its persona, template, tier and split', load: async () => {
		return (await import('./seeds.js')).seedCommand;
	}},
	{name: 'kb', summary: 'Knowledge bases: import, build indexes, search, stats, and the evidence of a seed', load: async () => {
		return (await import('./kb.js')).kbCommand;
	}},
	{name: 'schema', summary: 'Print the JSON Schema of a data shape (persona, template, seed, session, ...)', load: async () => {
		return (await import('./schema.js')).schemaCommand;
	}},
];

/** A command's summary, for its own module (one text per command, kept here). */
export function summaryOf(name: string): string {
	const entry = COMMANDS.find((candidate) => candidate.name === name);
	if (!entry) throw new Error(`no command '${name}' in the registry`);
	return entry.summary;
}
