/*
 * tools/profiler/record_queue.c - bounded buffers and the writer thread
 * (record_queue.h).
 */
#include "record_queue.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/profile/profile_format.h"

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes all of it; false on an error (a closed pipe, a full disk). */
static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void *writer_main(void *arg)
{
    gcs_record_queue *q = arg;
    /* A reader that went away must not kill the application with SIGPIPE:
     * blocked here, write() fails with EPIPE instead. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (q->n_full == 0 && !q->stop)
            pthread_cond_wait(&q->wake, &q->lock);
        if (q->n_full == 0 && q->stop)
            break;
        int b = q->full[q->head_full];
        q->head_full = (q->head_full + 1) % GCS_RQ_BUFFERS;
        q->n_full--;
        bool broken = q->broken;
        pthread_mutex_unlock(&q->lock);
        bool ok = broken || write_all(q->fd, q->buf[b], q->used[b]);
        pthread_mutex_lock(&q->lock);
        if (!ok) {
            /* Nobody reads any more: everything from here on is lost. */
            q->broken = true;
            q->write_errors++;
        }
        if (q->broken) {
            q->lost_bytes_total += q->used[b];
        }
        q->used[b] = 0;
        if (q->filling < 0)
            q->filling = b;
        else
            q->free_list[q->n_free++] = b;
        pthread_cond_broadcast(&q->wake);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

bool gcs_rq_start(gcs_record_queue *q, int fd, size_t cap)
{
    memset(q, 0, sizeof *q);
    q->fd = fd;
    q->cap = cap;
    for (int i = 0; i < GCS_RQ_BUFFERS; i++) {
        q->buf[i] = malloc(cap);
        if (!q->buf[i])
            return false;
    }
    q->filling = 0;
    for (int i = 1; i < GCS_RQ_BUFFERS; i++)
        q->free_list[q->n_free++] = i;
    if (pthread_mutex_init(&q->lock, NULL) != 0 || pthread_cond_init(&q->wake, NULL) != 0)
        return false;
    /* The writer is created with every signal blocked so that none of the
     * application's handlers runs on it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&q->writer, NULL, writer_main, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return false;
    q->started = true;
    return true;
}

/* The filling buffer goes to the writer; the next free one (if any)
 * becomes the filling one. */
static void hand_over(gcs_record_queue *q)
{
    if (q->filling < 0 || q->used[q->filling] == 0)
        return;
    q->full[(q->head_full + q->n_full) % GCS_RQ_BUFFERS] = q->filling;
    q->n_full++;
    q->filling = q->n_free > 0 ? q->free_list[--q->n_free] : -1;
    pthread_cond_broadcast(&q->wake);
}

static bool room(gcs_record_queue *q, size_t n)
{
    if (q->filling >= 0 && q->cap - q->used[q->filling] < n)
        hand_over(q);
    return q->filling >= 0 && q->cap - q->used[q->filling] >= n;
}

static void put(gcs_record_queue *q, const void *rec, size_t n)
{
    memcpy(q->buf[q->filling] + q->used[q->filling], rec, n);
    q->used[q->filling] += n;
}

void gcs_rq_wait_room_locked(gcs_record_queue *q, size_t n)
{
    /* A LOST record may go first: room for it too. */
    size_t need = n + 25;
    while (q->started && !q->stop && !q->broken && need <= q->cap && !room(q, need))
        pthread_cond_wait(&q->wake, &q->lock);
}

bool gcs_rq_append_locked(gcs_record_queue *q, const void *rec, size_t n, uint64_t lost_time)
{
    uint64_t now = lost_time;
    if (!q->started || q->stop || n > q->cap) {
        q->lost_records++;
        q->lost_records_total++;
        q->lost_bytes += n;
        q->lost_bytes_total += n;
        return false;
    }
    if (q->lost_records > 0) {
        uint8_t lost[25];
        lost[0] = GCS_PROFILE_LOST;
        put_u64(lost + 1, now);
        put_u64(lost + 9, q->lost_records);
        put_u64(lost + 17, q->lost_bytes);
        if (room(q, sizeof lost + n)) {
            put(q, lost, sizeof lost);
            q->lost_records = q->lost_bytes = 0;
        }
    }
    if (q->lost_records == 0 && room(q, n)) {
        put(q, rec, n);
        return true;
    }
    q->lost_records++;
    q->lost_records_total++;
    q->lost_bytes += n;
    q->lost_bytes_total += n;
    return false;
}

void gcs_rq_finish(gcs_record_queue *q)
{
    if (!q->started)
        return;
    pthread_mutex_lock(&q->lock);
    if (q->stop) {
        pthread_mutex_unlock(&q->lock);
        return;
    }
    hand_over(q);
    q->stop = true;
    pthread_cond_broadcast(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->writer, NULL);
    close(q->fd);
}
