import {type RuntimeOptions, sessionsDir} from '../app/runtime.js';
import type {Streams} from '../util/streams.js';
import {modelFlags, modelOptionsFromFlags} from './modelFlags.js';
import type {Flags, FlagSpec} from './types.js';

/** Flags of every command that runs episodes or stages. */
export const runtimeFlags: Record<string, FlagSpec> = {
	...modelFlags,
	sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
	embedder: {type: 'string', description: 'KB embedder: hf:<model-id>, local:<folder> or hash (default: env CULTURECONVERSE_EMBEDDER, else the multilingual default with a hash fallback)'},
};

/** The runtime options these flags choose (models, sessions folder, embedder). */
export function runtimeOptionsFromFlags(flags: Flags): RuntimeOptions {
	const dir = sessionsDirFlag(flags);
	const embedder = flags['embedder'];
	return {...modelOptionsFromFlags(flags), ...(dir === undefined ? {} : {sessionsDir: dir}), ...(typeof embedder === 'string' ? {embedder} : {})};
}

/** The sessions folder `--sessions-dir` names (else CULTURECONVERSE_SESSIONS_DIR, else ./sessions), checked to be a folder if it exists. */
export function sessionsDirFromFlags(flags: Flags, io: Pick<Streams, 'cwd' | 'env'>): string {
	return sessionsDir(sessionsDirFlag(flags), io);
}

function sessionsDirFlag(flags: Flags): string | undefined {
	const flag = flags['sessionsDir'];
	return typeof flag === 'string' ? flag : undefined;
}
