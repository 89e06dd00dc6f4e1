/* fuzz_plan: libFuzzer target for a PLAN as stampede-agent takes it
 * (agent/control/ag_ctl.c on_plan): the bytes are decoded (pr_msg_decode), the
 * plan's hash checked (pr_msg_plan_verify) and, whatever the hash says,
 * the plan is turned into a run (ag_run_new: the family parses the
 * workload's options, its share and TLS options, the engine its targets
 * and --mysql-ignore-errors). ag_run_new opens no connection and starts
 * no thread (ag_run_setup and ag_run_start do), so this is the agent's
 * whole decoding of a PLAN.
 *
 * Why past a wrong hash: the hash catches a PLAN altered on the way or a
 * coordinator of another build; it authenticates nothing, so anyone able to
 * send a PLAN can make it match, and mutated plans almost never do. A
 * plan whose family runs a Lua script is refused as an agent's default
 * configuration refuses it (allow-scripts = no): with scripts allowed, the
 * coordinator is trusted to run code. Beyond "no crash, no leak, no UB": a
 * refused plan comes back with a negative code and a NUL-terminated
 * message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ag_family.h"
#include "ag_registry.h"
#include "ag_run.h"
#include "pr_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const struct ag_run_error *e)
{
    if (e->code >= 0 || memchr(e->message, '\0', sizeof(e->message)) == NULL)
        abort();
}

static void take_plan(const struct pr_msg_plan *p)
{
    struct pr_error err = {0};
    struct ag_run_error e;

    if (pr_msg_plan_verify(p, &err) < 0 && memchr(err.msg, '\0', sizeof(err.msg)) == NULL)
        abort();
    const struct ag_family *fam = ag_registry_find(p->workload);
    if (fam != NULL && fam->plan_script != NULL && fam->plan_script(p) != NULL)
        return; /* refused: allow-scripts = no */
    ag_run *r = ag_run_new(p, 1, &e);
    if (r == NULL)
        check_error(&e);
    ag_run_destroy(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pr_msg m;
    struct pr_error err;

    if (pr_msg_decode(&m, data, size, &err) == 0 && m.type == PR_MSG_PLAN)
        take_plan(&m.u.plan);
    pr_msg_clear(&m);
    return 0;
}
