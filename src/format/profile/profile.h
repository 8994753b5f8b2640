/*
 * format/profile/profile.h - the record stream of gcscope's in-process
 * profiler (docs/format-profile.md) as a container: its records become the
 * runtime's own GC events, so every layer above reads a profile exactly as
 * it reads a trace.
 */
#ifndef GCS_FORMAT_PROFILE_PROFILE_H
#define GCS_FORMAT_PROFILE_PROFILE_H

#include "format/container.h"

/* True when p (n >= 8 bytes) starts with the profile magic. */
bool gcs_profile_sniff(const uint8_t *p, size_t n);

/* The profile container over s (nothing consumed by the sniffer). */
gcs_status gcs_profile_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                            gcs_error *err);

#endif
