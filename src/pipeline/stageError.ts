import type {ValidationAttempt} from '../domain/blueprint.js';
import type {ModelRole} from '../domain/session.js';
import type {FailureKind} from '../llm/types.js';

/**
 * A generation stage that could not produce a valid artefact: either its validation budget ran out
 * (kind 'invalid') or a model call failed for good (infrastructure). Ends an episode with
 * GENERATION_ERROR; the attempts trace says what went wrong each time.
 */
export class StageError extends Error {
	constructor(
		message: string,
		readonly stage: string,
		readonly attempts: readonly ValidationAttempt[],
		readonly kind: 'invalid' | FailureKind,
		/** The role whose call failed, when a model call did. */
		readonly role?: ModelRole,
	) {
		super(message);
		this.name = 'StageError';
	}
}
