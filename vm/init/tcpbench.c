// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpbench: loopback TCP throughput inside the kasan-tags VM, like the
 * cover letter's "iperf -s & iperf -c 127.0.0.1 -t 30" but tiny and static
 * (the kernel tree's nolibc; sockets through raw system calls).
 *
 * Brings up "lo", forks a server that reads and discards, and sends
 * 64 KiB writes from the client for SECONDS seconds (default 10), then
 * prints one machine-readable line:
 *
 *   KT-TCPBENCH bytes=N ms=T mbit_per_s=M
 */

#include <linux/in.h>
#include <linux/sockios.h>
#include <asm/socket.h>

/* The socket ABI constants libc would provide (include/linux/socket.h, net.h). */
#define AF_INET 2
#define SOCK_STREAM 1
#define SOCK_DGRAM 2

#define SECONDS 10
#define BUF_SIZE 65536
#define PORT 5201

/* The two fields of struct ifreq used here, padded to its 40-byte size. */
struct lab_ifreq {
	char name[16];
	short flags;
	char pad[22];
};

static char buf[BUF_SIZE];

static long sys_socket(int domain, int type, int proto)
{
	return my_syscall3(__NR_socket, domain, type, proto);
}

static long now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000L + tv.tv_usec / 1000;
}

static int loopback_up(void)
{
	struct lab_ifreq ifr = { .name = "lo" };
	long fd = sys_socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.flags |= 1;	/* IFF_UP */
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -1;
	close(fd);
	return 0;
}

static void addr_lo(struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = (PORT >> 8) | ((PORT & 0xff) << 8);	/* htons */
	sa->sin_addr.s_addr = 0x0100007f;			/* 127.0.0.1 */
}

static void serve(long lfd)
{
	long fd = my_syscall3(__NR_accept, lfd, NULL, NULL);

	if (fd < 0)
		exit(1);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	exit(0);
}

int main(void)
{
	struct sockaddr_in sa;
	long lfd, fd, start, end;
	unsigned long long bytes = 0;
	ssize_t n;
	int status, one = 1;
	pid_t pid;

	if (loopback_up()) {
		puts("KT-ERROR tcpbench: cannot bring up lo");
		return 1;
	}
	addr_lo(&sa);
	lfd = sys_socket(AF_INET, SOCK_STREAM, 0);
	my_syscall5(__NR_setsockopt, lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || my_syscall3(__NR_bind, lfd, &sa, sizeof(sa)) < 0 ||
	    my_syscall2(__NR_listen, lfd, 1) < 0) {
		puts("KT-ERROR tcpbench: cannot listen on 127.0.0.1");
		return 1;
	}
	pid = fork();
	if (pid == 0)
		serve(lfd);
	fd = sys_socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || my_syscall3(__NR_connect, fd, &sa, sizeof(sa)) < 0) {
		puts("KT-ERROR tcpbench: cannot connect");
		return 1;
	}
	start = now_ms();
	end = start + SECONDS * 1000L;
	while (now_ms() < end) {
		n = write(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		bytes += n;
	}
	end = now_ms();
	close(fd);
	waitpid(pid, &status, 0);
	printf("KT-TCPBENCH bytes=%llu ms=%ld mbit_per_s=%llu\n", bytes, end - start,
	       bytes * 8 / 1000 / (unsigned long long)(end - start));
	return 0;
}
