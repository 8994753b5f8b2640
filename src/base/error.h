/* base/error.h - filling gcs_error with the detecting file and line. */
#ifndef GCS_BASE_ERROR_H
#define GCS_BASE_ERROR_H

#include "gcscope/core.h"

/* Sets err (if not NULL) and returns status. printf-style reason. */
gcs_status gcs_error_set(gcs_error *err, gcs_status status, uint64_t offset,
                         const char *src_file, int src_line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* The one way to report bad input: records offset, reason, file and line. */
#define GCS_CORRUPT(err, offset, ...) \
    gcs_error_set((err), GCS_ERR_CORRUPT, (offset), __FILE__, __LINE__, __VA_ARGS__)
#define GCS_FAIL(err, status, offset, ...) \
    gcs_error_set((err), (status), (offset), __FILE__, __LINE__, __VA_ARGS__)

#endif
