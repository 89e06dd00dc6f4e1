/* test_co_srvstat: the per-interval server status window: figures kept
 * until dropped (co_srvstat_drop_below), a gauge's value and a counter's
 * increase (Innodb_buffer_pool_reads: PR_ENV_STATUS's 4th) through 10,000
 * intervals dropped as they go, nothing for a dropped interval or for one
 * sampled after its drop. */
#include <stdlib.h>
#include <string.h>

#include "co_srvstat.h"
#include "testlib.h"

/* Interval k's figures as take gives them (NULL: none); the caller frees. */
static struct co_srv_status *take(co_srvstat *t, uint64_t k)
{
    struct co_interval_result iv;
    memset(&iv, 0, sizeof(iv));
    iv.k = k;
    co_srvstat_take(t, &iv, 1);
    return iv.srv_status;
}

int main(void)
{
    struct pr_msg_stat base[2] = {{"Threads_running", 0}, {"Innodb_buffer_pool_reads", 0}};
    co_srvstat *t = co_srvstat_new();
    co_srvstat_baseline(t, base, 2);
    uint64_t bad = 0, kept = 0;
    for (uint64_t k = 0; k < 10000; k++) {
        struct pr_msg_stat srv[2] = {{"Threads_running", k % 7},
                                     {"Innodb_buffer_pool_reads", 10 * (k + 1)}};
        co_srvstat_sample(t, k, srv, 2);
        if (k >= 3) { /* a window of 3 live intervals, as the merge releases them */
            struct co_srv_status *s = take(t, k - 3);
            bad += s == NULL || !s->has[0] || s->value[0] != (k - 3) % 7 || !s->has[3] ||
                   s->value[3] != 10;
            kept += s != NULL;
            free(s);
            co_srvstat_drop_below(t, k - 2);
        }
    }
    printf("# 10000 intervals through a 3-interval window: %llu taken, %llu wrong\n",
           (unsigned long long)kept, (unsigned long long)bad);
    CHECK_EQ_U64(kept, 9997);
    CHECK_EQ_U64(bad, 0);
    struct co_srv_status *s = take(t, 9000);
    CHECK_MSG(s == NULL, "a dropped interval has no figures");
    free(s);
    s = take(t, 9998);
    CHECK_MSG(s != NULL && s->value[0] == 9998 % 7, "a live one keeps them");
    free(s);
    struct pr_msg_stat late[2] = {{"Threads_running", 1}, {"Innodb_buffer_pool_reads", 1}};
    co_srvstat_drop_below(t, 20000);
    co_srvstat_sample(t, 10000, late, 2); /* below the base: ignored */
    s = take(t, 10000);
    CHECK_MSG(s == NULL, "a sample for a dropped interval is not kept");
    free(s);
    co_srvstat_destroy(&t);
    return TEST_END();
}
