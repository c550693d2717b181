// The delivery floor: the least CPU a client can spend sending mr-replay's requests over loopback.
//
//   raw_post PORT BODY_FILE REQUESTS CONNECTIONS
//
// Sends REQUESTS copies of BODY_FILE as `POST /v1/batch` (HTTP/1.1, keep-alive, write key "K")
// over CONNECTIONS connections to 127.0.0.1:PORT, one request in flight on each, with one
// writev() per request, reading each answer whole (its head and its Content-Length bytes) and
// checking that it is a `200`. Its CPU time is the kernel's loopback TCP plus a loop that does
// nothing else: the floor under any client's per-request cost. Scripts/bench/floor.sh builds and
// runs it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_CONNECTIONS 64

static int fail(const char *what) {
    perror(what);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: raw_post PORT BODY_FILE REQUESTS CONNECTIONS\n");
        return 2;
    }
    int port = atoi(argv[1]), requests = atoi(argv[3]), connections = atoi(argv[4]);
    if (connections < 1 || connections > MAX_CONNECTIONS || requests < 1) {
        fprintf(stderr, "raw_post: REQUESTS must be positive and CONNECTIONS 1...%d\n", MAX_CONNECTIONS);
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) return fail(argv[2]);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *body = malloc(size > 0 ? size : 1);
    if (!body || fread(body, 1, size, f) != (size_t)size) return fail("reading the body");
    fclose(f);

    char head[256];
    int headLength = snprintf(head, sizeof head,
        "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Authorization: Basic Szo=\r\nContent-Length: %ld\r\n\r\n", size);

    int fds[MAX_CONNECTIONS], inFlight[MAX_CONNECTIONS] = {0};
    for (int c = 0; c < connections; c++) {
        fds[c] = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(fds[c], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct sockaddr_in address = {0};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fds[c], (struct sockaddr *)&address, sizeof address) != 0) return fail("connect");
    }

    // Each connection's answer so far; an answer is complete once its head and body are in.
    static char answers[MAX_CONNECTIONS][8192];
    int filled[MAX_CONNECTIONS] = {0};
    struct pollfd polls[MAX_CONNECTIONS];
    int sent = 0, answered = 0;
    while (answered < requests) {
        for (int c = 0; c < connections; c++) {
            if (inFlight[c] || sent == requests) continue;
            struct iovec parts[2] = {{head, headLength}, {body, size}};
            if (writev(fds[c], parts, 2) != headLength + size) return fail("writev (short write)");
            inFlight[c] = 1;
            filled[c] = 0;
            sent++;
        }
        for (int c = 0; c < connections; c++) polls[c] = (struct pollfd){.fd = fds[c], .events = POLLIN};
        if (poll(polls, connections, -1) < 0) return fail("poll");
        for (int c = 0; c < connections; c++) {
            if (!(polls[c].revents & POLLIN)) continue;
            char *a = answers[c];
            ssize_t n = read(fds[c], a + filled[c], sizeof answers[c] - 1 - filled[c]);
            if (n <= 0) return fail("read (the collector closed the connection)");
            filled[c] += (int)n;
            a[filled[c]] = 0;
            char *end = strstr(a, "\r\n\r\n");
            if (!end) continue;  // the head is not complete yet
            const char *lengthField = strstr(a, "Content-Length: ");
            long bodyLength = lengthField && lengthField < end ? atol(lengthField + 16) : 0;
            if (filled[c] < (end + 4 - a) + bodyLength) continue;  // the body is not complete yet
            if (strncmp(a, "HTTP/1.1 200", 12) != 0) {
                fprintf(stderr, "raw_post: not a 200 answer: %.80s\n", a);
                return 1;
            }
            inFlight[c] = 0;
            answered++;
        }
    }
    return 0;
}
