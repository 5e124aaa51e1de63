/*
 * alternate.sh's TCP probe: two processes ping-pong small messages over one loopback TCP connection (TCP_NODELAY),
 * polling recv as libfabric's tcp provider under ofi_rxm does for GASNet's and GEX/J's ofi ranks, and the parent
 * prints the mean round trip in microseconds. This VM has a state, lasting a minute or more and unseen by the smp and
 * copy probes, in which every ofi (tcp;ofi_rxm) round trip takes about 2.5 us longer (testsmall's 8-byte blocking put
 * 12.5-14.5 us instead of 10-10.6, for either program): compare.py compares ofi runs within one such state.
 *
 *   cc -O2 -o tcpprobe tcpprobe.c && ./tcpprobe [iterations (20000)] [bytes (64)]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void nodelay(int s) {
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Reads exactly len bytes, polling. */
static void receive(int s, char *buf, int len) {
    int got = 0;
    while (got < len) {
        ssize_t n = recv(s, buf + got, len - got, MSG_DONTWAIT);
        if (n > 0) {
            got += n;
        } else if (n == 0) {
            exit(1);
        }
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000, len = argc > 2 ? atoi(argv[2]) : 64, i, warm, l, c, a;
    struct sockaddr_in addr;
    socklen_t alen = sizeof addr;
    char buf[4096];
    double t0;
    if (n < 1 || len < 1 || len > (int) sizeof buf) {
        fprintf(stderr, "tcpprobe: iterations %d must be >= 1 and bytes %d in [1, %d]\n", n, len, (int) sizeof buf);
        return 2;
    }
    memset(buf, 1, sizeof buf);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *) &addr, sizeof addr) != 0 || listen(l, 1) != 0
        || getsockname(l, (struct sockaddr *) &addr, &alen) != 0) {
        perror("tcpprobe: listen");
        return 1;
    }
    warm = n / 10;
    if (fork() == 0) {
        c = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c, (struct sockaddr *) &addr, sizeof addr) != 0) {
            perror("tcpprobe: connect");
            _exit(1);
        }
        nodelay(c);
        for (i = 0; i < n + warm; i++) {
            receive(c, buf, len);
            send(c, buf, len, 0);
        }
        _exit(0);
    }
    a = accept(l, NULL, NULL);
    if (a < 0) {
        perror("tcpprobe: accept");
        return 1;
    }
    nodelay(a);
    for (i = 0; i < warm; i++) {
        send(a, buf, len, 0);
        receive(a, buf, len);
    }
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        send(a, buf, len, 0);
        receive(a, buf, len);
    }
    printf("%.2f\n", (now_ns() - t0) / n / 1000);
    wait(NULL);
    return 0;
}
