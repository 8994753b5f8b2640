/* Placeholder until the reader for this container lands. */
#include "base/error.h"
#include "format/container.h"

gcs_status gcs_netperf_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out, gcs_error *err)
{
    (void)sink;
    *out = NULL;
    return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, gcs_stream_offset(s), "netperf reader not built yet");
}
