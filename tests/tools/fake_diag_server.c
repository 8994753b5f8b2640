/*
 * fake_diag_server DIR MODE [ARG] - a diagnostic socket that is not (or is
 * a misbehaving) .NET runtime, for the CLI tests of `gcscope live`.
 *
 * Listens on DIR/dotnet-diagnostic-<its pid>-<its start time>-socket, as a
 * runtime would, prints "pid N" and "ready", then answers every
 * connection until killed:
 *   garbage          a reply that is not a diagnostic message
 *   refuse HRESULT   the error reply a runtime sends when it refuses
 *   private          like garbage, but the socket is mode 0600 (for a
 *                    permission test run as another user)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static char sock_path[200];

static void on_term(int sig)
{
    (void)sig;
    unlink(sock_path);
    _exit(0);
}

static unsigned long long start_time(void)
{
    char buf[1024];
    int f = open("/proc/self/stat", O_RDONLY);
    ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : -1;
    if (f >= 0)
        close(f);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fake_diag_server DIR garbage|refuse HRESULT|private\n");
        return 1;
    }
    const char *mode = argv[2];
    unsigned long hresult = argc > 3 ? strtoul(argv[3], NULL, 0) : 0x80131384ul;
    snprintf(sock_path, sizeof sock_path, "%s/dotnet-diagnostic-%d-%llu-socket", argv[1],
             (int)getpid(), start_time());
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(sock_path) >= sizeof addr.sun_path) {
        fprintf(stderr, "fake_diag_server: path too long\n");
        return 1;
    }
    memcpy(addr.sun_path, sock_path, strlen(sock_path) + 1);
    unlink(sock_path);
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 8) != 0) {
        perror("fake_diag_server");
        return 1;
    }
    chmod(sock_path, strcmp(mode, "private") == 0 ? 0600 : 0666);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    signal(SIGPIPE, SIG_IGN);
    printf("pid %d\nready\n", (int)getpid());
    fflush(stdout);
    for (;;) {
        int c = accept(ls, NULL, NULL);
        if (c < 0)
            continue;
        uint8_t req[256];
        (void)!read(c, req, sizeof req);
        if (!strcmp(mode, "refuse")) {
            uint8_t r[24] = "DOTNET_IPC_V1";
            r[14] = 24;
            r[16] = 0xFF;
            r[17] = 0xFF;
            for (int i = 0; i < 4; i++)
                r[20 + i] = (uint8_t)(hresult >> (8 * i));
            (void)!write(c, r, sizeof r);
        } else {
            static const char junk[] = "SSH-2.0-OpenSSH_9.6 not what you think\r\n";
            (void)!write(c, junk, sizeof junk - 1);
        }
        close(c);
    }
}
