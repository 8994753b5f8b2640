/*
 * Harness: the diagnostic-port reply parser. The input is what a peer
 * sends on the diagnostic socket: it is written into one end of a socket
 * pair (closed after it) and gcs_ipc_read_reply reads replies from the
 * other end until it fails, each reply then interpreted as the answer to
 * CollectTracing (session id or refusal) and to StopTracing.
 */
#include "fuzz_common.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/diag_ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 100000)
        return 0; /* more than a socket buffer holds without a reader */
    int sv[2];
    FUZZ_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    int buf = 1 << 20;
    (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    (void)setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    size_t sent = 0;
    while (sent < size) {
        ssize_t w = send(sv[0], data + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w <= 0)
            break;
        sent += (size_t)w;
    }
    close(sv[0]);
    for (int i = 0; i < 64; i++) {
        gcs_ipc_reply reply;
        gcs_error err;
        gcs_error_clear(&err);
        if (gcs_ipc_read_reply(sv[1], 100, &reply, &err) != GCS_OK) {
            FUZZ_REQUIRE(err.status < 0 && err.reason[0]);
            break;
        }
        FUZZ_REQUIRE(reply.header.size >= GCS_IPC_HEADER_SIZE);
        FUZZ_REQUIRE(reply.payload_size == (size_t)reply.header.size - GCS_IPC_HEADER_SIZE);
        uint64_t id = 0;
        uint32_t refused = 0;
        gcs_error_clear(&err);
        gcs_status st = gcs_ipc_collect_reply(&reply, &id, &refused, &err);
        FUZZ_REQUIRE(st == GCS_OK || (st < 0 && err.reason[0]));
        gcs_error_clear(&err);
        st = gcs_ipc_stop_reply(&reply, id, &err);
        FUZZ_REQUIRE(st == GCS_OK || (st < 0 && err.reason[0]));
    }
    close(sv[1]);
    return 0;
}
