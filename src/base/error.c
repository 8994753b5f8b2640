#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gcs_status_name(gcs_status status)
{
    switch (status) {
    case GCS_OK: return "ok";
    case GCS_END: return "end";
    case GCS_AGAIN: return "again";
    case GCS_ERR_NOT_TRACE: return "not-a-trace";
    case GCS_ERR_UNSUPPORTED: return "unsupported";
    case GCS_ERR_CORRUPT: return "corrupt";
    case GCS_ERR_TRUNCATED: return "truncated";
    case GCS_ERR_LIMIT: return "limit";
    case GCS_ERR_IO: return "io";
    case GCS_ERR_NOMEM: return "out-of-memory";
    case GCS_ERR_ARG: return "bad-argument";
    }
    return "unknown-status";
}

void gcs_error_clear(gcs_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

gcs_status gcs_error_set(gcs_error *err, gcs_status status, uint64_t offset,
                         const char *src_file, int src_line, const char *fmt, ...)
{
    if (err) {
        err->status = status;
        err->offset = offset;
        err->src_file = src_file;
        err->src_line = src_line;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->reason, sizeof err->reason, fmt, ap);
        va_end(ap);
    }
    return status;
}
