/* The payload walker on nettrace V6's newer field kinds: zig-zag varint,
 * varuint, UTF-8 code units, and arrays located elsewhere in the payload
 * (RelLoc, DataLoc). */
#include "check.h"

#include "gcscope.h"

typedef struct collected {
    int64_t ints[16];
    int n;
    int arrays;
    uint32_t array_counts[4];
} collected;

static int collect(const gcs_value *v, void *ctx)
{
    collected *c = ctx;
    if (v->kind == GCS_VALUE_ARRAY_BEGIN && c->arrays < 4)
        c->array_counts[c->arrays++] = v->count;
    if (v->kind == GCS_VALUE_SCALAR && c->n < 16)
        c->ints[c->n++] = v->i;
    return 0;
}

static void test_varints_and_char8(void)
{
    const gcs_field f[] = {
        {.name = "A", .type = GCS_T_VARINT},
        {.name = "B", .type = GCS_T_VARUINT},
        {.name = "C", .type = GCS_T_CHAR8},
    };
    /* A = zigzag(-3) = 5; B = 300 = 0xAC 0x02; C = 'x' */
    const uint8_t p[] = {0x05, 0xAC, 0x02, 'x'};
    collected c = {0};
    gcs_payload_info info;
    gcs_error err;
    CHECK_EQ_INT(gcs_payload_walk_fields(f, 3, p, sizeof p, 8, collect, &c, &info, &err), GCS_OK);
    CHECK_EQ_INT(c.n, 3);
    CHECK_EQ_INT(c.ints[0], -3);
    CHECK_EQ_INT(c.ints[1], 300);
    CHECK_EQ_INT(c.ints[2], 'x');
    CHECK_EQ_U64(info.trailing_bytes, 0);
}

static void test_located_arrays(void)
{
    const gcs_field f[] = {
        {.name = "Rel", .type = GCS_T_U16, .repeat = GCS_REPEAT_RELLOC},
        {.name = "Data", .type = GCS_T_U16, .repeat = GCS_REPEAT_DATALOC},
    };
    /* Rel: 2 elements (4 bytes) at 4 bytes after its descriptor (offset 8);
     * Data: 1 element (2 bytes) at payload offset 12. */
    const uint8_t p[] = {0x04, 0x00, 0x04, 0x00, 0x0C, 0x00, 0x02, 0x00,
                         0x07, 0x00, 0x08, 0x00, 0x09, 0x00};
    collected c = {0};
    gcs_payload_info info;
    gcs_error err;
    CHECK_EQ_INT(gcs_payload_walk_fields(f, 2, p, sizeof p, 8, collect, &c, &info, &err), GCS_OK);
    CHECK_EQ_INT(c.arrays, 2);
    CHECK_EQ_INT(c.array_counts[0], 2);
    CHECK_EQ_INT(c.array_counts[1], 1);
    CHECK_EQ_INT(c.n, 3);
    CHECK_EQ_INT(c.ints[0], 7);
    CHECK_EQ_INT(c.ints[1], 8);
    CHECK_EQ_INT(c.ints[2], 9);
    /* A location past the payload is corrupt, not a read out of bounds. */
    uint8_t bad[sizeof p];
    memcpy(bad, p, sizeof p);
    bad[0] = 0xF0; /* position 240 */
    c = (collected){0};
    CHECK_EQ_INT(gcs_payload_walk_fields(f, 2, bad, sizeof bad, 8, collect, &c, &info, &err),
                 GCS_ERR_CORRUPT);
    /* A size that is not a whole number of elements is corrupt too. */
    memcpy(bad, p, sizeof p);
    bad[2] = 0x03;
    CHECK_EQ_INT(gcs_payload_walk_fields(f, 2, bad, sizeof bad, 8, collect, &c, &info, &err),
                 GCS_ERR_CORRUPT);
}

int main(void)
{
    RUN(test_varints_and_char8);
    RUN(test_located_arrays);
    return check_report("test_payload_v6");
}
