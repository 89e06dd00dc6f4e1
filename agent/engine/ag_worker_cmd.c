/* ag_worker_cmd: command streams (prepare, cleanup, prewarm) on a worker's
 * connections: each connection takes the next unassigned stream and runs
 * it to the end, in order, then takes another. */
#include <stdatomic.h>

#include "ag_worker_int.h"

static bool piece_take(struct ag__wconn *wc)
{
    struct ag_worker_shared *sh = wc->w->sh;
    size_t i = atomic_fetch_add(&sh->next_piece, 1);

    if (i >= sh->npieces || atomic_load(&sh->abort))
        return false;
    wc->piece = &sh->pieces[i];
    return true;
}

void ag__worker_piece_next(struct ag__wconn *wc)
{
    ag_worker *w = wc->w;
    struct ag_call *call = ag_conn_call(wc->conn);
    const char *sql;
    size_t len;

    if (atomic_load(&w->sh->abort))
        wc->piece = NULL; /* a statement failed somewhere: stop loading */
    while (wc->piece) {
        if (wc->piece->next(wc->piece->it, &sql, &len, &wc->piece_rows)) {
            call->stmt = -1;
            call->text = sql;
            call->text_len = len;
            call->nparams = 0;
            call->kind = "command";
            call->want = wc->piece->result ? AG_WANT_RESULT : AG_WANT_NONE;
            call->rowset = wc->piece->result ? wc->piece->rowset : NULL;
            ag__worker_exec(wc);
            return;
        }
        const char *why = wc->piece->error ? wc->piece->error(wc->piece->it) : NULL;
        if (why) {
            ag__worker_piece_failed(wc, why);
            return;
        }
        atomic_fetch_add(&w->sh->pieces_done, 1); /* its last statement succeeded */
        if (!piece_take(wc))
            wc->piece = NULL;
    }
    wc->st = AG__WC_IDLE;
    if (--w->n_pieces_busy == 0) {
        for (size_t i = 0; i < w->n; i++)
            ag__worker_conn_done(&w->wc[i]);
        if (w->n == 0)
            ag__worker_maybe_finished(w);
    }
}

void ag__worker_do_pieces(ag_worker *w)
{
    w->n_pieces_busy = w->n;
    for (size_t i = 0; i < w->n; i++) {
        struct ag__wconn *wc = &w->wc[i];
        wc->piece = NULL;
        if (wc->st != AG__WC_IDLE) {
            w->n_pieces_busy--;
            continue;
        }
        wc->st = AG__WC_PIECE;
        if (!piece_take(wc)) {
            wc->st = AG__WC_IDLE;
            w->n_pieces_busy--;
            continue;
        }
        ag__worker_piece_next(wc);
    }
    if (w->n_pieces_busy == 0) {
        for (size_t i = 0; i < w->n; i++)
            ag__worker_conn_done(&w->wc[i]);
        ag__worker_maybe_finished(w);
    }
}
