import {readFileSync} from 'node:fs';

/**
 * True when process `pid` runs on this host. Signal 0 checks without touching it, but a zombie (a
 * process that exited and whose parent has not reaped it yet) still answers it: its pid "exists"
 * although it will never write again, so a lock or temp file it left is stale. Linux says so in
 * /proc/<pid>/stat (state Z, or X while it is being reaped); elsewhere signal 0 is all there is.
 */
export function processAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
	} catch (error) {
		// EPERM: it exists but belongs to another user.
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
	return !isZombie(pid);
}

function isZombie(pid: number): boolean {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return false; // no /proc (not Linux), or it ended meanwhile (the next look finds it gone)
	}
	// "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
	const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
	return state === 'Z' || state === 'X';
}
