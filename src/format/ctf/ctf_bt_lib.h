/*
 * format/ctf/ctf_bt_lib.h - libbabeltrace2, opened the first time a CTF
 * trace needs it (base/lazy_lib.h says why it is not linked): our own CTF
 * reader reads most traces; babeltrace2 is the fallback for metadata beyond
 * its subset, and what GCSCOPE_CTF_READER=babeltrace asks for. A machine
 * without it reads every trace the native reader does. The entry points
 * ctf.c calls are gcs_babeltrace's members, named and typed as in
 * <babeltrace2/babeltrace.h>, valid once gcs_babeltrace_load returned true
 * (bt_field_class_type_is is the header's inline function, not a symbol).
 *
 * GCSCOPE_LIBBABELTRACE2 names the library file to open instead of
 * libbabeltrace2.so.0.
 */
#ifndef GCS_FORMAT_CTF_BT_LIB_H
#define GCS_FORMAT_CTF_BT_LIB_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "gcscope/core.h"

/* X(name) for each libbabeltrace2 function ctf.c calls. */
#define GCS_BABELTRACE_FUNCTIONS(X) \
    X(bt_clock_class_get_frequency) \
    X(bt_clock_class_get_offset) \
    X(bt_clock_snapshot_borrow_clock_class_const) \
    X(bt_clock_snapshot_get_value) \
    X(bt_component_filter_borrow_input_port_by_index_const) \
    X(bt_component_filter_borrow_output_port_by_index_const) \
    X(bt_component_filter_get_input_port_count) \
    X(bt_component_sink_borrow_input_port_by_index_const) \
    X(bt_component_source_borrow_output_port_by_index_const) \
    X(bt_component_source_get_output_port_count) \
    X(bt_current_thread_take_error) \
    X(bt_error_borrow_cause_by_index) \
    X(bt_error_cause_get_actor_type) \
    X(bt_error_cause_get_message) \
    X(bt_error_get_cause_count) \
    X(bt_error_release) \
    X(bt_event_borrow_class_const) \
    X(bt_event_borrow_common_context_field_const) \
    X(bt_event_borrow_packet_const) \
    X(bt_event_borrow_payload_field_const) \
    X(bt_event_class_borrow_stream_class_const) \
    X(bt_event_class_get_name) \
    X(bt_field_array_borrow_element_field_by_index_const) \
    X(bt_field_array_get_length) \
    X(bt_field_bool_get_value) \
    X(bt_field_borrow_class_const) \
    X(bt_field_class_integer_get_field_value_range) \
    X(bt_field_class_structure_borrow_member_by_index_const) \
    X(bt_field_class_structure_get_member_count) \
    X(bt_field_class_structure_member_get_name) \
    X(bt_field_get_class_type) \
    X(bt_field_integer_signed_get_value) \
    X(bt_field_integer_unsigned_get_value) \
    X(bt_field_real_double_precision_get_value) \
    X(bt_field_real_single_precision_get_value) \
    X(bt_field_string_get_length) \
    X(bt_field_string_get_value) \
    X(bt_field_structure_borrow_member_field_by_index_const) \
    X(bt_field_structure_borrow_member_field_by_name_const) \
    X(bt_graph_add_filter_component) \
    X(bt_graph_add_simple_sink_component) \
    X(bt_graph_add_source_component) \
    X(bt_graph_connect_ports) \
    X(bt_graph_create) \
    X(bt_graph_put_ref) \
    X(bt_graph_run_once) \
    X(bt_message_discarded_events_get_count) \
    X(bt_message_event_borrow_default_clock_snapshot_const) \
    X(bt_message_event_borrow_event_const) \
    X(bt_message_get_type) \
    X(bt_message_iterator_next) \
    X(bt_message_put_ref) \
    X(bt_packet_borrow_context_field_const) \
    X(bt_plugin_borrow_filter_component_class_by_name_const) \
    X(bt_plugin_borrow_source_component_class_by_name_const) \
    X(bt_plugin_find) \
    X(bt_plugin_put_ref) \
    X(bt_stream_class_borrow_default_clock_class_const) \
    X(bt_value_array_append_string_element) \
    X(bt_value_map_create) \
    X(bt_value_map_insert_empty_array_entry) \
    X(bt_value_put_ref)

#define GCS_BABELTRACE_MEMBER(name) __typeof__(name) *name;
typedef struct gcs_babeltrace_api {
    GCS_BABELTRACE_FUNCTIONS(GCS_BABELTRACE_MEMBER)
} gcs_babeltrace_api;
#undef GCS_BABELTRACE_MEMBER

/* Filled by gcs_babeltrace_load, read-only after it (any thread). */
extern gcs_babeltrace_api gcs_babeltrace;

/* Opens libbabeltrace2 once per process (thread-safe): true when every
 * entry point is there; false with err set (GCS_ERR_UNSUPPORTED, offset 0,
 * the loader's reason), the same answer each time. */
bool gcs_babeltrace_load(gcs_error *err);

#endif
