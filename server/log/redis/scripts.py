"""The Lua scripts that write a room's game in Redis. Each first checks that the room's lease still
holds this node's fencing token (else -1): a node that lost its lease can no longer write the
room's log. And the one that issues a resume token. (Their callers:
:class:`server.log.redis.store.RedisStore`.)
"""

# KEYS: lease, game, running, seats, history...  ARGV: fence, data, room, game_id, person names...
GAME_STARTED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[2], 'data', ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
for i = 5, #ARGV do redis.call('HSET', KEYS[4], ARGV[i], ARGV[3]) end
for i = 5, #KEYS do
    redis.call('LPUSH', KEYS[i], ARGV[4])
    redis.call('LTRIM', KEYS[i], 0, 49)
end
return 1
"""
# KEYS: lease, moves, game  ARGV: fence, number, move, mark (optional: the server played the move
# for its player, "clock" or "bot"; kept beside it, in the game's field auto:NUMBER)
MOVE_PLAYED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local n = redis.call('LLEN', KEYS[2])
if n + 1 ~= tonumber(ARGV[2]) then return -2 end
redis.call('RPUSH', KEYS[2], ARGV[3])
if ARGV[4] then redis.call('HSET', KEYS[3], 'auto:' .. ARGV[2], ARGV[4]) end
return n + 1
"""
# KEYS: lease, game, seats, history of the new player (optional)
# ARGV: fence, data as read, new data, room, old name, new name, game_id
# The game's data changes only if nobody changed it since it was read (else -3: read again).
SEAT_TAKEN = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HGET', KEYS[2], 'data') ~= ARGV[2] then return -3 end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
if redis.call('HGET', KEYS[3], ARGV[5]) == ARGV[4] then redis.call('HDEL', KEYS[3], ARGV[5]) end
redis.call('HSET', KEYS[3], ARGV[6], ARGV[4])
if #KEYS > 3 then
    redis.call('LPUSH', KEYS[4], ARGV[7])
    redis.call('LTRIM', KEYS[4], 0, 49)
end
return 1
"""
# KEYS: lease, game  ARGV: fence, data as read, new data
# The game's data changes only if nobody changed it since it was read (else -3: read again).
DATA_CHANGED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HGET', KEYS[2], 'data') ~= ARGV[2] then return -3 end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
return 1
"""
# KEYS: lease, game, running, seats, rated, leaderboard
# ARGV: fence, result, finished, room, game_id, ratings (JSON: RedisAccounts.rating_plan), people...
# The outcome and the ratings are written together, once: a finished game returns 0, a rating
# that changed since it was read returns -3 (read again and retry).
GAME_FINISHED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HEXISTS', KEYS[2], 'result') == 1 then return 0 end
local plan = cjson.decode(ARGV[6])
for _, check in ipairs(plan.checks) do
    local games = tonumber(redis.call('HGET', check[1], 'games') or '0')
    if games ~= check[2] then return -3 end
end
for _, w in ipairs(plan.writes) do
    redis.call('HSET', w[1], 'name', w[2], 'mu', w[3], 'sigma', w[4], 'games', w[5], 'wins', w[6])
    redis.call('ZADD', KEYS[6], w[7], w[8])
end
if #plan.writes > 0 then redis.call('SET', KEYS[5], plan.rated) end
redis.call('HSET', KEYS[2], 'result', ARGV[2], 'finished', ARGV[3])
if redis.call('HGET', KEYS[3], ARGV[4]) == ARGV[5] then redis.call('HDEL', KEYS[3], ARGV[4]) end
for i = 7, #ARGV do
    if redis.call('HGET', KEYS[4], ARGV[i]) == ARGV[4] then redis.call('HDEL', KEYS[4], ARGV[i]) end
end
return 1
"""
# KEYS: the name's latest token (token-of:NAME), the new token's hash, the prefix of a token's hash
# ARGV: new token, name, identity, seconds it is kept, the token a resume came with ("": none)
# The name's earlier token goes. With a token to replace, only while it is still the name's and
# not revoked (else 0: another resume took it first).
TOKEN_ISSUED = """
local old = redis.call('GET', KEYS[1])
if ARGV[5] ~= '' and (old ~= ARGV[5] or redis.call('EXISTS', KEYS[3] .. ARGV[5]) == 0) then return 0 end
if old then redis.call('DEL', KEYS[3] .. old) end
redis.call('HSET', KEYS[2], 'name', ARGV[2], 'identity', ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
return 1
"""
# KEYS: the token's hash  ARGV: when it expires
# A token whose connection is gone holds until then, if it still stands (revoked: nothing).
TOKEN_RELEASED = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'expires', ARGV[1]) end
return 1
"""
