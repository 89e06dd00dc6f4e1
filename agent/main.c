/* stampede-agent: wires settings to the control loop; nothing else here. */
#include <stdio.h>

#include "ag_config.h"
#include "ag_ctl.h"
#include "pr_keyfile.h"
#include "pr_lua.h"

int main(int argc, char **argv)
{
    struct ag_config cfg;
    struct pr_error err = {0};
    bool help = false, version = false;

    pr_secrets_protect(); /* the PLAN brings the database password */
    if (ag_config_parse(&cfg, argc, argv, &help, &version, &err) < 0) {
        fprintf(stderr, "stampede-agent: %s\n", err.msg);
        return 2;
    }
    if (help || version) {
        fputs(help ? ag_config_usage() : "stampede-agent " STAMPEDE_VERSION "\n", stdout);
        ag_config_clear(&cfg);
        return 0;
    }
    pr_lua_set_memory_limit(cfg.lua_memory_mib);
    int rc = ag_ctl_run(&cfg);
    ag_config_clear(&cfg);
    return rc < 0 ? 1 : 0;
}
