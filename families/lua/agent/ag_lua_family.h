/* ag_lua_family: users' own sysbench Lua scripts (workload "lua:NAME"),
 * the family ag_registry lists. See ag_lua_family.c. */
#ifndef AG_LUA_FAMILY_H
#define AG_LUA_FAMILY_H

#include "ag_family.h"

extern const struct ag_family ag_lua_family;

#endif
