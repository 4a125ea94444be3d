package redisstore

import "github.com/redis/go-redis/v9"

// The scripts keep the accounting of the store with its records. KEYS are
// the record, the index (a sorted set of the live records' ids by expiry in
// Unix milliseconds), the meta hash ("o:ID" the owner, "s:ID" the size,
// "d:ID" the record's member of the finished set once its task finished),
// the usage hash ("b" the bytes of all records, "n:OWNER" and "b:OWNER" an
// owner's records and bytes; the number of records is the index's size) and
// the finished set (the records of finished tasks, by lexical order of
// "OWNER\0CREATED\0ID", CREATED the creation in Unix milliseconds on 16
// digits: an owner's oldest first). ARGV starts with the id and the four
// limits.

// accounting is the head of every script: forget removes a record from the
// accounting, fits reports what a growth by n records and size bytes of
// owner's would go beyond.
const accounting = `
local id = ARGV[1]
local maxRecords, maxBytes = tonumber(ARGV[2]), tonumber(ARGV[3])
local maxUserRecords, maxUserBytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local function num(v) return tonumber(v or '0') or 0 end
local function forget(rid)
  if not redis.call('ZSCORE', KEYS[2], rid) then return end
  local owner = redis.call('HGET', KEYS[3], 'o:' .. rid) or ''
  local size = num(redis.call('HGET', KEYS[3], 's:' .. rid))
  local done = redis.call('HGET', KEYS[3], 'd:' .. rid)
  if done then redis.call('ZREM', KEYS[5], done) end
  redis.call('ZREM', KEYS[2], rid)
  redis.call('HDEL', KEYS[3], 'o:' .. rid, 's:' .. rid, 'd:' .. rid)
  redis.call('HINCRBY', KEYS[4], 'b', -size)
  if owner ~= '' then
    if redis.call('HINCRBY', KEYS[4], 'n:' .. owner, -1) <= 0 then
      redis.call('HDEL', KEYS[4], 'n:' .. owner, 'b:' .. owner)
    else
      redis.call('HINCRBY', KEYS[4], 'b:' .. owner, -size)
    end
  end
end
local function fits(owner, n, size)
  if redis.call('ZCARD', KEYS[2]) + n > maxRecords or num(redis.call('HGET', KEYS[4], 'b')) + size > maxBytes then
    return 'full'
  end
  if owner ~= '' and (num(redis.call('HGET', KEYS[4], 'n:' .. owner)) + n > maxUserRecords or
      num(redis.call('HGET', KEYS[4], 'b:' .. owner)) + size > maxUserBytes) then
    return 'userfull'
  end
  return 'ok'
end
local function finished(rid, member)
  if member ~= '' and not redis.call('HGET', KEYS[3], 'd:' .. rid) then
    redis.call('ZADD', KEYS[5], 0, member)
    redis.call('HSET', KEYS[3], 'd:' .. rid, member)
  end
end
`

// createScript: ARGV[6] the record, [7] its expiry in Redis (ms, 0 none),
// [8] owner, [9] size, [10] index score (its TTL's end, or +inf), [11] now,
// [12] the store's prefix, [13] the record's member of the finished set
// ("" when its task has not finished).
//
// When the store is full, a record of an owner makes room (makeRoom): it
// takes the place of the oldest records of finished tasks of the owner
// holding the most records that has one, among those holding at least two
// more, at most 8 of them, so that owners at many addresses cannot keep another out
// for the records' TTL.
var createScript = redis.NewScript(accounting + `
local function makeRoom(owner, size)
  local mine = num(redis.call('HGET', KEYS[4], 'n:' .. owner))
  for _ = 1, 8 do
    if fits(owner, 1, size) ~= 'full' then return end
    local owners = {}
    local usage = redis.call('HGETALL', KEYS[4])
    for i = 1, #usage, 2 do
      local k = usage[i]
      if string.sub(k, 1, 2) == 'n:' then
        local o, n = string.sub(k, 3), num(usage[i + 1])
        if o ~= owner and n >= mine + 2 then table.insert(owners, {o, n}) end
      end
    end
    table.sort(owners, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
    local victim = nil
    for _, on in ipairs(owners) do
      local top = on[1]
      local oldest = redis.call('ZRANGEBYLEX', KEYS[5], '[' .. top .. '\0', '[' .. top .. '\0\255', 'LIMIT', 0, 1)
      if #oldest > 0 then
        local first = string.find(oldest[1], '\0', string.len(top) + 2, true)
        victim = string.sub(oldest[1], first + 1)
        break
      end
    end
    if victim == nil then return end
    forget(victim)
    redis.call('DEL', ARGV[12] .. victim)
  end
end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[11], 'LIMIT', 0, 1000)) do
  forget(old)
end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local owner, size = ARGV[8], num(ARGV[9])
local answer = fits(owner, 1, size)
if answer == 'full' and owner ~= '' then
  makeRoom(owner, size)
  answer = fits(owner, 1, size)
end
if answer ~= 'ok' then return answer end
if ARGV[7] == '0' then
  redis.call('SET', KEYS[1], ARGV[6])
else
  redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[7])
end
redis.call('ZADD', KEYS[2], ARGV[10], id)
redis.call('HSET', KEYS[3], 'o:' .. id, owner, 's:' .. id, size)
redis.call('HINCRBY', KEYS[4], 'b', size)
if owner ~= '' then
  redis.call('HINCRBY', KEYS[4], 'n:' .. owner, 1)
  redis.call('HINCRBY', KEYS[4], 'b:' .. owner, size)
end
finished(id, ARGV[13])
return 'ok'
`)

// updateScript: ARGV[6] the record, [7] its size, [8] its member of the
// finished set ("" when its task has not finished). The record keeps its
// expiry; a record no longer counted (its TTL ended) is not counted again.
const updateScript = accounting + `
local old = redis.call('HGET', KEYS[3], 's:' .. id)
if old then
  local owner = redis.call('HGET', KEYS[3], 'o:' .. id) or ''
  local grow = num(ARGV[7]) - num(old)
  if grow > 0 then
    local answer = fits(owner, 0, grow)
    if answer ~= 'ok' then return answer end
  end
  redis.call('HSET', KEYS[3], 's:' .. id, num(ARGV[7]))
  redis.call('HINCRBY', KEYS[4], 'b', grow)
  if owner ~= '' then redis.call('HINCRBY', KEYS[4], 'b:' .. owner, grow) end
  finished(id, ARGV[8])
end
redis.call('SET', KEYS[1], ARGV[6], 'KEEPTTL')
return 'ok'
`

// deleteScript forgets the record and deletes it.
var deleteScript = redis.NewScript(accounting + `
forget(id)
redis.call('DEL', KEYS[1])
return 'ok'
`)
