/*
 * format/etl/etl.h - the Windows ETW log file (.etl) container.
 */
#ifndef GCS_FORMAT_ETL_ETL_H
#define GCS_FORMAT_ETL_ETL_H

#include "format/container.h"

/* True when the first n bytes look like an ETL file: a WMI buffer header
 * whose first record is the logfile header event (needs 80 bytes). */
bool gcs_etl_sniff(const uint8_t *p, size_t n);

/* The ETL container over s (nothing consumed by the sniffer). */
gcs_status gcs_etl_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out, gcs_error *err);

#endif
