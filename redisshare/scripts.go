package redisshare

import "github.com/redis/go-redis/v9"

// The scripts run inside Redis, each one call and atomic: Redis runs one
// script at a time. Every time is Redis's own (TIME), in milliseconds, so
// the clocks of the machines sharing it cannot shorten a rest.
//
// An address's key is a hash:
//
//	due    when the address may be asked again (the end of its rest)
//	tok    the last fencing token granted (key kept 60 s past its use)
//	held   the token of the lease in force; empty when none
//	until  when that lease ends by itself
//	lrest  the rest after a lease that ended without a Rest
//	at     when the lease in force, or the last, was granted
//	cyc    the last cycle: from a grant to the end of the rest after it
//
// The epoch key holds when the data began: set by the first call that
// finds it missing, on a fresh server or one restarted without its data.
// For grace milliseconds after that, an address without a key may not be
// taken: the processes that held leases or knew rests in the lost data
// write them back first (restore).

// takeScript: KEYS address, host, robots, epoch; ARGV lease, lrest,
// robotsMaxAge (0: not a robots.txt request), grace, floor. Replies
// {kind, n, epoch}: {"granted", token}, {"wait", ms}, {"stopped",
// reason}, {"robots", 0}. A robots.txt request is told of a copy saved
// by another before anything else.
//
// An address held by another is asked again when it should be free: at
// the holder's grant plus the address's last cycle (cyc: a grant to the
// end of the rest after it), and never sooner than the floor from now,
// since the rest after a give-back still to come is no shorter. Told to
// wait the floor alone, every process that had lost asked once more
// before the rest ended (BenchmarkShared: 7.8 calls a request over four
// processes).
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease, lrest, robotsAge, grace, floor = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local epoch = redis.call('GET', KEYS[4])
if not epoch then
  epoch = tostring(now)
  redis.call('SET', KEYS[4], epoch)
end
local h = redis.call('HMGET', KEYS[2], 'until', 'reason')
if h[1] and tonumber(h[1]) > now then
  return {'stopped', h[2] or '', epoch}
end
if robotsAge > 0 then
  local at = tonumber(redis.call('HGET', KEYS[3], 'at'))
  if at and now - at < robotsAge then
    return {'robots', 0, epoch}
  end
end
local a = redis.call('HMGET', KEYS[1], 'due', 'tok', 'held', 'until', 'lrest', 'at', 'cyc')
if not a[1] and not a[2] and now < tonumber(epoch) + grace then
  return {'wait', tonumber(epoch) + grace - now, epoch}
end
local cyc = tonumber(a[7]) or floor
local due = tonumber(a[1]) or 0
if a[3] and a[3] ~= '' then
  local untilMs = tonumber(a[4])
  if now < untilMs then
    return {'wait', math.min(math.max((tonumber(a[6]) or now) + cyc, now + floor), untilMs) - now, epoch}
  end
  -- The holder never gave it back: rest as after a failure.
  due = math.max(due, untilMs + tonumber(a[5]))
  redis.call('HSET', KEYS[1], 'due', due, 'held', '')
end
if now < due then
  return {'wait', due - now, epoch}
end
-- A token above every one granted before, even if the key was lost:
-- each is at least the time of its grant, and grants of an address are
-- a rest apart. (Milliseconds, about 1.8e12: far within the 2^53 a Lua
-- number holds exactly.)
local tok = math.max(tonumber(a[2]) or 0, now) + 1
redis.call('HSET', KEYS[1], 'tok', tok, 'held', tok, 'until', now + lease, 'lrest', lrest, 'at', now)
redis.call('PEXPIRE', KEYS[1], lease + lrest + 60000)
return {'granted', tok, epoch}
`)

// restScript: KEYS address, epoch; ARGV token, rest. Replies {applied
// (1 or 0), epoch}: 0 when a later token was granted since (the lease
// ended and the address went on to another): that holder's rest stands.
// A give-back whose lease ended with no grant since still takes its rest,
// the larger of it and the failure's rest the lease's end set. An address
// with no key (the data was lost, or the key ended long after) takes the
// rest too: a rest added is never less polite.
var restScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = redis.call('GET', KEYS[2]) or ''
local tok = tonumber(redis.call('HGET', KEYS[1], 'tok'))
if tok and tok > tonumber(ARGV[1]) then
  return {0, epoch}
end
local due = math.max(now + tonumber(ARGV[2]), tonumber(redis.call('HGET', KEYS[1], 'due')) or 0)
redis.call('HSET', KEYS[1], 'due', due, 'held', '')
local at = tonumber(redis.call('HGET', KEYS[1], 'at'))
if at then
  redis.call('HSET', KEYS[1], 'cyc', due - at)
end
redis.call('PEXPIRE', KEYS[1], due - now + 60000)
return {1, epoch}
`)

// restoreScript writes back, after the data was lost, what one process
// knew: KEYS epoch, then addresses; ARGV the epoch it found, then four
// per address: kind ("l" a lease in force, "r" a rest), token, ms left,
// lrest. Nothing is written unless the epoch is still the one found.
var restoreScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
for i = 2, #KEYS do
  local j = (i - 2) * 4 + 2
  local kind, tok, ms, lrest = ARGV[j], tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), tonumber(ARGV[j + 3])
  local a = redis.call('HMGET', KEYS[i], 'due', 'tok', 'held')
  if kind == 'l' then
    if not a[3] or a[3] == '' then
      redis.call('HSET', KEYS[i], 'held', tok, 'tok', math.max(tonumber(a[2]) or 0, tok), 'until', now + ms, 'lrest', lrest)
      redis.call('PEXPIRE', KEYS[i], ms + lrest + 60000)
    end
  else
    local due = math.max(now + ms, tonumber(a[1]) or 0)
    redis.call('HSET', KEYS[i], 'due', due)
    if not a[3] or a[3] == '' then
      redis.call('PEXPIRE', KEYS[i], due - now + 60000)
    end
  end
end
return 1
`)

// saveRobotsScript: KEYS robots; ARGV status, header, body, fetched,
// keep (ms). The copy's "at" is Redis's time of the save: takeScript
// tells a robots.txt request that a copy was saved within the robots
// period. It is kept for keep, polite.RobotsStaleLimit (30 days), the
// longest a copy may stand in for a site that cannot be reached.
var saveRobotsScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'header', ARGV[2], 'body', ARGV[3], 'fetched', ARGV[4], 'at', now)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// epochScript: KEYS epoch. Replies the epoch, made now (Redis's time) if
// it is missing.
var epochScript = redis.NewScript(`
local e = redis.call('GET', KEYS[1])
if not e then
  local t = redis.call('TIME')
  e = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  redis.call('SET', KEYS[1], e)
end
return e
`)
