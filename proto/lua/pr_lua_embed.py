#!/usr/bin/env python3
"""pr_lua_embed: write a Lua source as a C string constant.

Usage: pr_lua_embed.py INPUT.lua OUTPUT.c NAME
"""
import sys

src = open(sys.argv[1], 'rb').read()
with open(sys.argv[2], 'w') as out:
    out.write('/* generated from %s by pr_lua_embed.py */\n#include <stddef.h>\n'
              % sys.argv[1].rsplit('/', 1)[-1])
    out.write('const char %s[] = {\n' % sys.argv[3])
    for i in range(0, len(src), 16):
        out.write(''.join('%d,' % b for b in src[i:i + 16]) + '\n')
    out.write('0};\nconst size_t %s_len = %d;\n' % (sys.argv[3], len(src)))
