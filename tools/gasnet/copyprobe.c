/*
 * alternate.sh's copy probe: two processes ping-pong 32 KiB UDP datagrams over loopback, polling recv as GASNet's
 * and GEX/J's udp ranks do, and the parent prints the mean round trip in microseconds. Besides its fast and slow
 * core-to-core modes, this VM has a mode in which the kernel's copies of large datagrams take about 3 times as long
 * for tens of seconds: this program then takes 45-50 us instead of 16-22, as GASNet's and GEX/J's udp testam do at
 * 32 KiB (47-55 us instead of 19-22). compare.py compares runs only within one mode.
 *
 *   cc -O2 -o copyprobe copyprobe.c && ./copyprobe [iterations (5000)] [bytes (32768)]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
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

static int bound_socket(struct sockaddr_in *a) {
    int s = socket(AF_INET, SOCK_DGRAM, 0), big = 4 << 20;
    socklen_t len = sizeof *a;
    if (s < 0) { perror("copyprobe: socket"); exit(1); }
    setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *) a, sizeof *a) != 0 || getsockname(s, (struct sockaddr *) a, &len) != 0) {
        perror("copyprobe: bind");
        exit(1);
    }
    return s;
}

static void receive(int s, char *buf, int len) {
    while (recv(s, buf, len, MSG_DONTWAIT) < 0) {
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 5000, len = argc > 2 ? atoi(argv[2]) : 32768, i, warm;
    struct sockaddr_in a0, a1;
    int s0 = bound_socket(&a0), s1 = bound_socket(&a1);
    char *buf;
    double t0;
    if (n < 1 || len < 1 || len > 65507) {
        fprintf(stderr, "copyprobe: iterations %d must be >= 1 and bytes %d in [1, 65507]\n", n, len);
        return 2;
    }
    buf = aligned_alloc(4096, 65536);
    memset(buf, 1, 65536);
    warm = n / 10;
    if (fork() == 0) {
        for (i = 0; i < n + warm; i++) {
            receive(s1, buf, len);
            sendto(s1, buf, len, 0, (struct sockaddr *) &a0, sizeof a0);
        }
        _exit(0);
    }
    for (i = 0; i < warm; i++) {
        sendto(s0, buf, len, 0, (struct sockaddr *) &a1, sizeof a1);
        receive(s0, buf, len);
    }
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        sendto(s0, buf, len, 0, (struct sockaddr *) &a1, sizeof a1);
        receive(s0, buf, len);
    }
    printf("%.2f\n", (now_ns() - t0) / n / 1000);
    wait(NULL);
    return 0;
}
