package redisshare

import "github.com/redis/go-redis/v9"

// The scripts run inside Redis, each atomic: Redis runs one script at a
// time. Every time is Redis's own (TIME), in milliseconds, so the clocks
// of the machines sharing it cannot shorten a rest or lengthen a lease.
// TIME has microseconds, and no rest may be short by a part of a
// millisecond (R1.4): clock reads it both ways (see there).
// Each touches the keys of one address, which share its hash tag, and
// the epoch key of that slot: on a Redis Cluster each is one slot's call.
//
// An address's hash, KEYS[1] of each:
//
//	due    when the address may be asked again (the end of the last rest)
//	tok    the last fencing token granted
//	owner  the Shared that owns the address; empty when none
//	until  when that ownership ends by itself (its lease)
//	lrest  the rest after a lease that ended without a release
//	nxt    the waiter the address is kept for, until nxtUntil
//
// Beside it, of the same tag: the waiters, a list of Shareds in the order
// they asked; the stops, a hash of host to "until|reason" (R3); the
// robots.txt copies fetched there, a hash of origin to when (R5.3).
//
// The epoch key holds when the slot's data began: set by the first call
// that finds it missing, on a fresh server or one restarted without its
// data, and kept 30 days (a crawl whose Prefix is not used again leaves
// nothing behind; one that runs on costs a grace a month). For grace milliseconds after that, an address without a key may
// not be claimed: the processes that owned it, or knew its rest, write
// them back first (restore.go).

// clock begins every script that reads Redis's time: now is TIME in
// milliseconds rounded down, up the same rounded up. A due, a lease's end
// or an epoch counted on from the present starts from up, so that it is
// never earlier than the true time and the rest (every rest sent is
// rounded up too: ceilMs); a time left until a due, a stop or a grace is
// counted from now, so that it is never short; a lease left told to its
// owner is counted from up, so that its owner's end of it is never later
// than Redis's. Compared with a stored time, a whole millisecond, now is
// exact: now >= t just when TIME has reached t.
const clock = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local up = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
`

// claimScript: KEYS address, waiters, stops, robots, epoch; ARGV owner,
// lease, lrest, grace, robotsAge, address, channel prefix. Replies
// {"owned", token, lease left, rest left, epoch, stops, origins,
// waiters}: the address is the caller's, to be asked once the rest left
// is over (stops are host, until, reason; origins those whose robots.txt
// was fetched within robotsAge; waiters how many others wait for it);
// {"wait", ms, epoch}: another owns it, or it is kept for another, and
// the caller is a waiter, told (on its channel) when it is given up;
// {"rest", ms, epoch}: nobody owns it, but it rests longer than a lease
// (a park, a long backoff), and nobody waits for it.
var claimScript = redis.NewScript(clock + `
local me, lease, lrest, grace, robotsAge = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local epoch = redis.call('GET', KEYS[5])
if not epoch then
  epoch = tostring(up)
  redis.call('SET', KEYS[5], epoch, 'PX', 2592000000)
end
local a = redis.call('HMGET', KEYS[1], 'due', 'tok', 'owner', 'until', 'lrest', 'nxt', 'nxtUntil')
if not a[1] and not a[2] and now < tonumber(epoch) + grace then
  return {'wait', tonumber(epoch) + grace - now, epoch}
end
local due = tonumber(a[1]) or 0
local owner = a[3] or ''
local untilMs = tonumber(a[4]) or 0
local function wait(ms)
  if not redis.call('LPOS', KEYS[2], me) then
    redis.call('RPUSH', KEYS[2], me)
    if owner ~= '' then
      redis.call('PUBLISH', ARGV[7] .. owner, 'w ' .. ARGV[6])
    end
  end
  redis.call('PEXPIRE', KEYS[2], ms + 60000)
  return {'wait', ms, epoch}
end
if owner ~= '' and owner ~= me then
  if now < untilMs then
    return wait(untilMs - now)
  end
  -- The owner let its lease end: it died or stopped. Rest as after a failure.
  due = math.max(due, untilMs + (tonumber(a[5]) or 0))
  owner = ''
  redis.call('HSET', KEYS[1], 'due', due, 'owner', '')
  if due > now then
    -- Not granted before that rest ends: a late release of the owner
    -- (paused, not dead) still counts, its token not yet fenced out.
    return {'rest', due - now, epoch}
  end
end
local nxtUntil = tonumber(a[7]) or 0
if a[6] and a[6] ~= '' and a[6] ~= me and now < nxtUntil then
  return wait(nxtUntil - now)
end
if owner == me and now < untilMs then
  -- Already the caller's (a claim sent again, its reply lost): the lease
  -- goes on, under a new token, so that a release of the old one that
  -- comes late changes nothing.
  untilMs = math.max(untilMs, math.max(up, due) + lease)
else
  if due - now > lease then
    return {'rest', due - now, epoch}
  end
  untilMs = math.max(up, due) + lease
end
-- A token above every one granted before, even if the key was lost:
-- each is at least the time of its grant (milliseconds, about 1.8e12,
-- far within the 2^53 a Lua number holds exactly).
local tok = math.max(tonumber(a[2]) or 0, now) + 1
redis.call('HSET', KEYS[1], 'tok', tok, 'owner', me, 'until', untilMs, 'lrest', lrest, 'nxt', '')
redis.call('LREM', KEYS[2], 0, me)
redis.call('PEXPIRE', KEYS[1], untilMs - now + lrest + 60000)
local stops, origins = {}, {}
local s = redis.call('HGETALL', KEYS[3])
for i = 1, #s, 2 do
  local bar = string.find(s[i + 1], '|', 1, true)
  if bar and tonumber(string.sub(s[i + 1], 1, bar - 1)) > now then
    table.insert(stops, s[i])
    table.insert(stops, string.sub(s[i + 1], 1, bar - 1))
    table.insert(stops, string.sub(s[i + 1], bar + 1))
  end
end
local r = redis.call('HGETALL', KEYS[4])
for i = 1, #r, 2 do
  if up - tonumber(r[i + 1]) < robotsAge then
    table.insert(origins, r[i])
  end
end
return {'owned', tok, untilMs - up, math.max(due - now, 0), epoch, stops, origins, redis.call('LLEN', KEYS[2])}
`)

// renewScript: KEYS address, waiters, epoch; ARGV owner, token, lease.
// Replies {"owned", lease left, waiters, epoch}, the lease made to last
// lease from now; or {"lost", 0, 0, epoch}: the lease ended, or the
// address went on to another, or its key was lost.
var renewScript = redis.NewScript(clock + `
local epoch = redis.call('GET', KEYS[3])
if not epoch then
  epoch = tostring(up)
  redis.call('SET', KEYS[3], epoch, 'PX', 2592000000)
end
local a = redis.call('HMGET', KEYS[1], 'tok', 'owner', 'until', 'lrest')
if a[2] ~= ARGV[1] or a[1] ~= ARGV[2] or now >= tonumber(a[3]) then
  return {'lost', 0, 0, epoch}
end
local untilMs = math.max(tonumber(a[3]), up + tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'until', untilMs)
redis.call('PEXPIRE', KEYS[1], untilMs - now + (tonumber(a[4]) or 0) + 60000)
return {'owned', untilMs - up, redis.call('LLEN', KEYS[2]), epoch}
`)

// releaseScript: KEYS address, waiters, epoch; ARGV owner, token, rest,
// keep, address, channel prefix. Replies {applied (1 or 0),
// epoch}: 0 when a later token was granted since (the lease ended and
// the address went on to another): that owner's rest stands. A release
// whose lease ended with no grant since still takes its rest, the larger
// of it and the failure's rest the lease's end set. The first waiter is
// told, and the address kept for it until keep past the rest.
var releaseScript = redis.NewScript(clock + `
local epoch = redis.call('GET', KEYS[3]) or ''
local a = redis.call('HMGET', KEYS[1], 'tok', 'owner', 'due', 'until', 'lrest')
local tok = tonumber(a[1])
if tok and tok > tonumber(ARGV[2]) then
  return {0, epoch}
end
local due = math.max(up + tonumber(ARGV[3]), tonumber(a[3]) or 0)
if a[2] and a[2] ~= '' and a[2] ~= ARGV[1] then
  -- The lease ended and another's, granted by a server that lost the
  -- token, is in force: keep it, and the rest too.
  redis.call('HSET', KEYS[1], 'due', due)
  return {0, epoch}
end
if a[2] == ARGV[1] and tonumber(a[4]) and now >= tonumber(a[4]) then
  due = math.max(due, tonumber(a[4]) + (tonumber(a[5]) or 0))
end
redis.call('HSET', KEYS[1], 'due', due, 'owner', '', 'until', 0)
local keep = 0
local nxt = redis.call('LPOP', KEYS[2])
if nxt then
  keep = due - now + tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], 'nxt', nxt, 'nxtUntil', now + keep)
  redis.call('PUBLISH', ARGV[6] .. nxt, 'r ' .. ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], due - now + keep + 60000)
return {1, epoch}
`)

// restoreScript writes back, after the data was lost, what one process
// knew of one address: KEYS address, epoch; ARGV kind ("o" owned, "r"
// a rest), owner, token, ms left, lrest. A lease is written only if no
// other owner is in force; a rest only ever lengthens the address's.
var restoreScript = redis.NewScript(clock + `
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = tostring(up)
  redis.call('SET', KEYS[2], epoch, 'PX', 2592000000)
end
local kind, me, tok, ms, lrest = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local a = redis.call('HMGET', KEYS[1], 'due', 'tok', 'owner', 'until')
if kind == 'o' then
  if not a[3] or a[3] == '' or a[3] == me or now >= (tonumber(a[4]) or 0) then
    redis.call('HSET', KEYS[1], 'owner', me, 'tok', math.max(tonumber(a[2]) or 0, tok), 'until', up + ms, 'lrest', lrest)
    redis.call('PEXPIRE', KEYS[1], ms + lrest + 60000)
  end
else
  local due = math.max(up + ms, tonumber(a[1]) or 0)
  redis.call('HSET', KEYS[1], 'due', due)
  if not a[3] or a[3] == '' then
    redis.call('PEXPIRE', KEYS[1], due - now + 60000)
  end
end
return epoch
`)

// epochScript: KEYS epoch. Replies the slot's epoch, made now (Redis's
// time) if it is missing.
var epochScript = redis.NewScript(clock + `
local e = redis.call('GET', KEYS[1])
if not e then
  e = tostring(up)
  redis.call('SET', KEYS[1], e, 'PX', 2592000000)
end
return e
`)

// markScript: KEYS robots marks of an address; ARGV origin, robotsAge.
// Notes, by Redis's time rounded down (a copy is never taken as younger
// than it is), that origin's robots.txt was fetched: a claim of the
// address tells its next owner (R5.3).
var markScript = redis.NewScript(clock + `
redis.call('HSET', KEYS[1], ARGV[1], now)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// saveRobotsScript: KEYS robots; ARGV status, header, body, fetched,
// keep (ms). The copy is kept for keep, polite.RobotsStaleLimit (30
// days), the longest a copy may stand in for a site that cannot be
// reached.
var saveRobotsScript = redis.NewScript(`
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'header', ARGV[2], 'body', ARGV[3], 'fetched', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)
