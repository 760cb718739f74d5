import type {Redis} from 'ioredis';
import {MAX_HOLD_MS, PROBE_MS, RESET_MARGIN_MS} from '../llm/pacer.js';
import type {RateHeaders} from '../llm/rateHeaders.js';

/*
 * The pacing of llm/pacer.ts for a distributed batch: the same rule, in Lua, on the endpoint's state
 * hash (queue/keys.ts limitKeys), with Redis's clock, so every worker on every machine spaces its
 * starts by one shared reading of the server's rate headers. claimStart and observePace in pacer.ts
 * are the reference; test/queue-limiter.test.ts checks that both place the same starts. Unknown
 * figures are stored as ''. Times are whole milliseconds, rounded up (Lua 5.1 prints numbers with 14
 * digits), so the Lua side errs slow.
 */

const COMMON = `
local PROBE = ${PROBE_MS}
local MARGIN = ${RESET_MARGIN_MS}
local MAXHOLD = ${MAX_HOLD_MS}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(v) if v == false or v == nil or v == '' then return nil end return tonumber(v) end
local function keep(v) if v == nil then return '' end return v end
`;

/** claimStart: how many ms to wait before asking again (0: this start goes, and is counted). */
const CLAIM = `${COMMON}
local f = redis.call('HMGET', KEYS[1], 'p_rr', 'p_rl', 'p_rt', 'p_tr', 'p_tl', 'p_tt', 'p_tpr', 'p_next', 'p_pause')
local rr, rl, rt = num(f[1]), num(f[2]), num(f[3])
local tr, tl, tt = num(f[4]), num(f[5]), num(f[6])
local tpr = num(f[7]) or 0
local function current(rem, lim, reset)
  if rem == nil or reset == nil or now < reset then return rem, lim, reset end
  if lim == nil then return nil, nil, nil end
  return lim, lim, nil
end
local function short(rem, cost) return rem ~= nil and cost > 0 and rem < cost end
local function spacing(rem, reset, cost)
  if rem == nil or reset == nil or cost <= 0 then return 0 end
  return (reset - now) / math.max(1, rem / cost)
end
local function save(extra)
  redis.call('HSET', KEYS[1], 'p_rr', keep(rr), 'p_rl', keep(rl), 'p_rt', keep(rt), 'p_tr', keep(tr), 'p_tl', keep(tl), 'p_tt', keep(tt))
  if extra then redis.call('HSET', KEYS[1], 'p_next', extra) end
end
rr, rl, rt = current(rr, rl, rt)
tr, tl, tt = current(tr, tl, tt)
if short(rr, 1) or short(tr, tpr) then
  local untilT = now
  if short(rr, 1) then
    if rt == nil then rt = now + PROBE end
    untilT = math.max(untilT, rt)
  end
  if short(tr, tpr) then
    if tt == nil then tt = now + PROBE end
    untilT = math.max(untilT, tt)
  end
  save(nil)
  return math.max(1, math.ceil(untilT - now))
end
local due = math.max(num(f[8]) or 0, num(f[9]) or 0)
if due > now then
  save(nil)
  return math.ceil(due - now)
end
local gap = math.min(math.max(spacing(rr, rt, 1), spacing(tr, tt, tpr)), MAXHOLD)
if rr ~= nil then rr = math.max(0, rr - 1) end
if tr ~= nil then tr = math.max(0, tr - tpr) end
local slot = now
local previous = num(f[8]) or 0
if previous > 0 then slot = math.max(previous, now - gap) end
save(math.ceil(slot + gap))
return 0
`;

/**
 * observePace: ARGV ticket ('' = newest), rateLimited ('1'), requests remaining/limit/reset-in-ms,
 * tokens remaining/limit/reset-in-ms, retry-after ms, tokens used. Returns 1 when the width should
 * narrow (a 429 without quota headers).
 */
const OBSERVE = `${COMMON}
local tpr = num(redis.call('HGET', KEYS[1], 'p_tpr')) or 0
local used = num(ARGV[10])
if used ~= nil and used > 0 then
  if tpr == 0 then tpr = used else tpr = 0.8 * tpr + 0.2 * used end
  redis.call('HSET', KEYS[1], 'p_tpr', tpr)
end
local rr, tr = num(ARGV[3]), num(ARGV[6])
if rr == nil and tr == nil then
  if ARGV[2] == '1' then return 1 end
  return 0
end
local function at(inMs)
  local v = num(inMs)
  if v == nil then return '' end
  return math.ceil(now + math.min(v, MAXHOLD) + MARGIN)
end
local ticket = num(ARGV[1])
local seen = num(redis.call('HGET', KEYS[1], 'p_ticket')) or 0
if ticket == nil or ticket >= seen then
  if ticket ~= nil then redis.call('HSET', KEYS[1], 'p_ticket', ticket) end
  if rr ~= nil then redis.call('HSET', KEYS[1], 'p_rr', rr, 'p_rl', ARGV[4], 'p_rt', at(ARGV[5])) end
  if tr ~= nil then redis.call('HSET', KEYS[1], 'p_tr', tr, 'p_tl', ARGV[7], 'p_tt', at(ARGV[8])) end
end
if ARGV[2] == '1' then
  local wait = nil
  if rr ~= nil and rr < 1 then wait = num(ARGV[5]) or PROBE end
  if tr ~= nil and tr < math.max(1, tpr) then
    local w = num(ARGV[8]) or PROBE
    if wait == nil or w > wait then wait = w end
  end
  if wait ~= nil then
    local asked = num(ARGV[9])
    if asked ~= nil then
      wait = asked
      if rr ~= nil and rr < 1 then redis.call('HSET', KEYS[1], 'p_rr', 1, 'p_rl', '', 'p_rt', '') end
      if tr ~= nil and tr < math.max(1, tpr) then redis.call('HSET', KEYS[1], 'p_tr', math.max(1, tpr), 'p_tl', '', 'p_tt', '') end
    end
    local pause = math.max(num(redis.call('HGET', KEYS[1], 'p_pause')) or 0, now + math.min(wait, MAXHOLD))
    redis.call('HSET', KEYS[1], 'p_pause', math.ceil(pause))
  end
end
return 0
`;

type PacerScripts = {
	ccPaceClaim(state: string): Promise<number>;
	ccPaceObserve(state: string, ...args: string[]): Promise<number>;
};

export function withPacerScripts(redis: Redis): Redis & PacerScripts {
	if (!(redis as Partial<PacerScripts>).ccPaceClaim) {
		redis.defineCommand('ccPaceClaim', {numberOfKeys: 1, lua: CLAIM});
		redis.defineCommand('ccPaceObserve', {numberOfKeys: 1, lua: OBSERVE});
	}
	return redis as Redis & PacerScripts;
}

/** How long to wait before asking again, by Redis's clock; 0: the start goes now (and counts against the quota). */
export async function claimRemoteStart(redis: Redis, state: string): Promise<number> {
	return Number(await withPacerScripts(redis).ccPaceClaim(state));
}

/** Feeds one reply's rate headers to the endpoint's shared pacing; true when the width should narrow. */
export async function observeRemote(redis: Redis, state: string, observation: {readonly ticket?: number; readonly rateLimited: boolean; readonly rate: RateHeaders; readonly tokens?: number}): Promise<boolean> {
	const text = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(Math.round(value)));
	const {requests, tokens, retryAfterMs} = observation.rate;
	const narrow = await withPacerScripts(redis).ccPaceObserve(
		state,
		text(observation.ticket),
		observation.rateLimited ? '1' : '0',
		text(requests?.remaining),
		text(requests?.limit),
		text(requests?.resetInMs),
		text(tokens?.remaining),
		text(tokens?.limit),
		text(tokens?.resetInMs),
		text(retryAfterMs),
		text(observation.tokens),
	);
	return Number(narrow) === 1;
}
