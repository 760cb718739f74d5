import {ExitCode, UserError} from '../util/errors.js';
import type {Flags, IO} from './types.js';

export function paper(flags: Flags, io: IO): number {
	void flags;
	void io;
	throw new UserError('report paper: not yet');
	return ExitCode.ok;
}
