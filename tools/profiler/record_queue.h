/*
 * tools/profiler/record_queue.h - the bounded buffers between the
 * profiler's callbacks and its writer thread.
 *
 * Callbacks append records under a mutex into the buffer being filled;
 * a full buffer goes to the writer thread, which writes it to the output
 * descriptor and hands it back. There are GCS_RQ_BUFFERS buffers of a
 * fixed size: when none is free, a record is dropped and counted (the
 * next record that fits is preceded by a LOST record saying how many).
 * Appending never waits for I/O, never allocates, never fails loudly.
 */
#ifndef GCSCOPE_PROFILER_RECORD_QUEUE_H
#define GCSCOPE_PROFILER_RECORD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCS_RQ_BUFFERS 4

typedef struct gcs_record_queue {
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* the writer: a buffer is full, or stop */
    uint8_t *buf[GCS_RQ_BUFFERS];
    size_t used[GCS_RQ_BUFFERS];
    size_t cap;                /* bytes per buffer */
    int filling;               /* index of the buffer being filled, -1: none free */
    int full[GCS_RQ_BUFFERS];  /* FIFO of full buffers for the writer */
    int n_full, head_full;
    int free_list[GCS_RQ_BUFFERS];
    int n_free;
    int fd;
    bool stop, broken, started;
    pthread_t writer;
    uint64_t lost_records, lost_bytes;             /* since the last LOST record */
    uint64_t lost_records_total, lost_bytes_total;
    uint64_t write_errors;
} gcs_record_queue;

/* Sets up cap-byte buffers writing to fd and starts the writer thread.
 * false if memory or the thread could not be had. */
bool gcs_rq_start(gcs_record_queue *q, int fd, size_t cap);

/* With the lock held: waits until a record of n bytes fits (the writer
 * frees a buffer), or the output is broken or stopped. For the last
 * record (EXIT): the process is ending, and dropping it would make the
 * whole profile read as cut short. Records on the application's path
 * never wait: they are dropped and counted. */
void gcs_rq_wait_room_locked(gcs_record_queue *q, size_t n);

/* Appends one record of n bytes (n <= cap), or drops and counts it
 * (false). The caller holds q->lock (gcs_rq_lock). A LOST record that
 * precedes it carries the time lost_time. */
bool gcs_rq_append_locked(gcs_record_queue *q, const void *rec, size_t n, uint64_t lost_time);

static inline void gcs_rq_lock(gcs_record_queue *q) { pthread_mutex_lock(&q->lock); }
static inline void gcs_rq_unlock(gcs_record_queue *q) { pthread_mutex_unlock(&q->lock); }

/* Hands the partly filled buffer to the writer, waits until everything is
 * written, stops the writer thread and closes fd. Idempotent. */
void gcs_rq_finish(gcs_record_queue *q);

#endif
