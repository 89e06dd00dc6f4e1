/* ag_tlsconn: a TLS connect off the loop. See ag_tlsconn.h. */
#include "ag_tlsconn.h"

#include <stdlib.h>
#include <string.h>

#include "pr_err.h"
#include "pr_tls.h"

struct ag_tlsconn {
    uv_work_t work; /* the thread-pool request; work.data is the job */
    MYSQL *m;       /* the handle, owned until the callback */
    MYSQL *ret;     /* mysql_real_connect's result (pool thread) */
    char *host;     /* copies of the arguments */
    char *user;
    char *password;
    char *db;
    char *socket;
    unsigned port;
    unsigned long flags;
    ag_tlsconn_cb cb; /* NULL once abandoned */
    void *data;       /* callback data */
};

static char *dup_or_null(const char *s)
{
    return s ? pr_xstrdup(s) : NULL;
}

static void job_free(ag_tlsconn *j)
{
    if (j->password) /* no copy of a secret left in freed memory */
        memset(j->password, 0, strlen(j->password));
    free(j->host);
    free(j->user);
    free(j->password);
    free(j->db);
    free(j->socket);
    free(j);
}

/* Pool thread: the blocking connect, handshake and name lookup included. */
static void work_cb(uv_work_t *w)
{
    ag_tlsconn *j = w->data;

    j->ret = mysql_real_connect(j->m, j->host, j->user, j->password, j->db, j->port, j->socket,
                                j->flags);
}

/* Loop thread. */
static void after_cb(uv_work_t *w, int status)
{
    ag_tlsconn *j = w->data;

    (void)status; /* never cancelled: ag_tlsconn_abandon lets the work run out */
    if (j->cb == NULL) {
        mysql_close(j->m);
        pr_tls_clear_errors();
    } else {
        j->cb(j->m, j->ret, j->data);
    }
    job_free(j);
}

ag_tlsconn *ag_tlsconn_start(uv_loop_t *loop, MYSQL *m, const struct ag_tlsconn_args *a,
                             ag_tlsconn_cb cb, void *data, int *rc)
{
    ag_tlsconn *j = pr_xcalloc(1, sizeof *j);

    j->m = m;
    j->host = dup_or_null(a->host);
    j->user = dup_or_null(a->user);
    j->password = dup_or_null(a->password);
    j->db = dup_or_null(a->db);
    j->socket = dup_or_null(a->socket);
    j->port = a->port;
    j->flags = a->flags;
    j->cb = cb;
    j->data = data;
    j->work.data = j;
    *rc = uv_queue_work(loop, &j->work, work_cb, after_cb);
    if (*rc < 0) {
        job_free(j);
        return NULL;
    }
    return j;
}

void ag_tlsconn_abandon(ag_tlsconn **jp)
{
    if (!jp || !*jp)
        return;
    (*jp)->cb = NULL;
    *jp = NULL;
}
