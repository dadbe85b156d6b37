/*
 * One NETLINK_SOCK_DIAG dump per family and protocol: the kernel answers
 * at once from its own tables, without touching the sockets, so a hung
 * program's sockets cost no more than an idle one's.  A dump shows the
 * network namespace it is asked in: one more set of dumps in each other
 * namespace a process is in (a container's).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "sockdiag.h"

struct sock {
	struct sockinfo	 i;
	/*
	 * A unix listener's address, as bound: a path, or abstract.  Only
	 * listeners have one: a machine may hold 100 000 other sockets.
	 */
	char		*name;
	size_t		 nname;
	UT_hash_handle	 hh;
};

/* An inet socket's ends, as the kernel keys a connection. */
/* include/net/tcp_states.h: not in the uapi headers. */
#define TCP_SYN_SENT_STATE	2
#define TCP_TIME_WAIT_STATE	6
#define TCP_LISTEN_STATE	10

struct tuple {
	uint8_t		 family, proto;
	uint16_t	 sport, dport, pad;
	uint32_t	 ns;		/* its network namespace: 0 ours */
	uint32_t	 src[4], dst[4];
};

struct inet {
	struct tuple	 t;
	uint32_t	 ino;
	uint8_t		 listening, state;
	UT_hash_handle	 hh;
};

struct sockdiag {
	struct sock	*socks;
	struct inet	*inets;
	uint32_t	 ns;		/* of the dumps under way */
	uint32_t	*nss;		/* the others dumped */
	size_t		 nns;
};

static struct sock *
sock_add(struct sockdiag *d, uint32_t ino, enum sock_kind kind)
{
	struct sock *s;

	HASH_FIND(hh, d->socks, &ino, sizeof(ino), s);
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		s->i.ino = ino;
		HASH_ADD(hh, d->socks, i.ino, sizeof(s->i.ino), s);
	}
	if (kind != SK_OTHER)
		s->i.kind = kind;
	return s;
}

/* Sends req, then hands each answer to fn until the dump is done. */
static int
dump(void *req, size_t len, void (*fn)(struct sockdiag *, struct nlmsghdr *),
    struct sockdiag *d)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { 1, 0 };	/* the kernel answers at once */
	struct nlmsghdr *h = req;
	static char buf[32768] __attribute__((aligned(8)));
	ssize_t n;
	int fd, done = 0, ok = 0;

	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	h->nlmsg_len = len;
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = 1;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		goto out;
	while (!done) {
		if ((n = recv(fd, buf, sizeof(buf), 0)) <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			goto out;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		    h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out;
			fn(d, h);
		}
	}
	ok = 1;
out:
	close(fd);
	return ok ? 0 : -1;
}

static void
unix_msg(struct sockdiag *d, struct nlmsghdr *h)
{
	struct unix_diag_msg *m = NLMSG_DATA(h);
	struct rtattr *a;
	struct sock *s, *q;
	uint32_t *icons;
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	size_t i, n;

	if (len < 0)
		return;
	s = sock_add(d, m->udiag_ino, SK_UNIX);
	s->i.listening = m->udiag_state == TCP_LISTEN_STATE;
	for (a = (struct rtattr *)(m + 1); RTA_OK(a, len);
	    a = RTA_NEXT(a, len)) {
		if (a->rta_type == UNIX_DIAG_PEER &&
		    RTA_PAYLOAD(a) >= (int)sizeof(uint32_t))
			memcpy(&s->i.peer, RTA_DATA(a), sizeof(uint32_t));
		else if (a->rta_type == UNIX_DIAG_NAME && s->i.listening &&
		    s->name == NULL && (n = RTA_PAYLOAD(a)) > 0) {
			s->name = xmalloc(n);
			memcpy(s->name, RTA_DATA(a), n);
			s->nname = n;
		} else if (a->rta_type == UNIX_DIAG_ICONS) {
			/* Connections queued on a listener, not yet accepted. */
			icons = RTA_DATA(a);
			n = RTA_PAYLOAD(a) / sizeof(uint32_t);
			for (i = 0; i < n; i++) {
				q = sock_add(d, icons[i], SK_UNIX);
				q->i.listener = m->udiag_ino;
			}
		}
	}
}

static const uint8_t v4mapped[12] = { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };

/*
 * An IPv6 socket's connection to an IPv4 one (a JVM opens AF_INET6 by
 * default; its peer may be AF_INET) has v4-mapped addresses on its side
 * only: as an IPv4 tuple, so that the mirrored pair is found.
 */
static void
v4_of_mapped(struct tuple *t)
{
	if (t->family != AF_INET6 || memcmp(t->src, v4mapped, 12) != 0 ||
	    memcmp(t->dst, v4mapped, 12) != 0)
		return;
	t->family = AF_INET;
	t->src[0] = t->src[3];
	t->dst[0] = t->dst[3];
	memset(&t->src[1], 0, 3 * sizeof(t->src[0]));
	memset(&t->dst[1], 0, 3 * sizeof(t->dst[0]));
}

static void
inet_msg(struct sockdiag *d, struct nlmsghdr *h)
{
	struct inet_diag_msg *m = NLMSG_DATA(h);
	struct inet *e;

	/*
	 * A socket without a file (inode 0) is kept when it is a connection
	 * queued on a listener: its peer waits for it to be accepted.  Not
	 * when it is only the kernel's memory of a closed one.
	 */
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
	    (m->idiag_inode == 0 && m->idiag_state == TCP_TIME_WAIT_STATE))
		return;
	e = xcalloc(1, sizeof(*e));
	e->t.family = m->idiag_family;
	e->t.proto = 0;
	e->t.sport = m->id.idiag_sport;
	e->t.dport = m->id.idiag_dport;
	e->t.ns = d->ns;
	memcpy(e->t.src, m->id.idiag_src, sizeof(e->t.src));
	memcpy(e->t.dst, m->id.idiag_dst, sizeof(e->t.dst));
	v4_of_mapped(&e->t);
	e->ino = m->idiag_inode;
	e->listening = m->idiag_state == TCP_LISTEN_STATE;
	e->state = m->idiag_state;
	HASH_ADD(hh, d->inets, t, sizeof(e->t), e);
}

static void
inet_dump(struct sockdiag *d, int family, int proto)
{
	struct {
		struct nlmsghdr		nh;
		struct inet_diag_req_v2	r;
	} req;
	struct inet *e, *tmp;

	memset(&req, 0, sizeof(req));
	req.r.sdiag_family = family;
	req.r.sdiag_protocol = proto;
	req.r.idiag_states = ~0u;
	/* Tuples of one protocol at a time: mark the new ones with it. */
	if (dump(&req, sizeof(req), inet_msg, d) == -1)
		return;
	HASH_ITER(hh, d->inets, e, tmp)
		if (e->t.proto == 0) {
			HASH_DEL(d->inets, e);
			e->t.proto = proto;
			HASH_ADD(hh, d->inets, t, sizeof(e->t), e);
		}
}

/*
 * The listening socket that queued t, a connection not accepted yet: one
 * of t's protocol and port, on t's address or on any (an IPv6 one on any
 * queues IPv4 connections too, as v4-mapped ones).
 */
static uint32_t
inet_listener(struct sockdiag *d, const struct tuple *t)
{
	static const uint32_t any[4];
	struct inet *e, *tmp;

	HASH_ITER(hh, d->inets, e, tmp)
		if (e->t.dport == 0 && e->ino != 0 && e->t.ns == t->ns &&
		    e->t.proto == t->proto && e->t.sport == t->sport &&
		    (e->t.family == t->family || (e->t.family == AF_INET6 &&
		    t->family == AF_INET)) &&
		    ((e->t.family == t->family &&
		    memcmp(e->t.src, t->src, sizeof(t->src)) == 0) ||
		    memcmp(e->t.src, any, sizeof(any)) == 0))
			return e->ino;
	return 0;
}

/* 10.0.0.7:5432, [2001:db8::7]:5432, a v4-mapped address as IPv4. */
static void
endpoint(char buf[64], size_t size, int family, const uint32_t *a,
    uint16_t port)
{
	char s[INET6_ADDRSTRLEN];

	if (family == AF_INET6 && memcmp(a, v4mapped, 12) != 0) {
		inet_ntop(AF_INET6, a, s, sizeof(s));
		snprintf(buf, size, "[%.46s]:%u", s, (unsigned)ntohs(port) &
		    0xffff);
		return;
	}
	inet_ntop(AF_INET, family == AF_INET6 ? a + 3 : a, s, sizeof(s));
	snprintf(buf, size, "%.46s:%u", s, (unsigned)ntohs(port) & 0xffff);
}

/* 127.0.0.0/8 or ::1: a connection that never leaves its namespace. */
static int
loopback(const struct tuple *t)
{
	return t->family == AF_INET ? (ntohl(t->src[0]) >> 24) == 127 :
	    memcmp(t->src, in6addr_loopback.s6_addr, 16) == 0;
}

/*
 * The socket of tuple t (its namespace's as given) or, where that has
 * none and t is routed (not loopback), the one other namespace's that
 * has: a connection between a container and the host, or two containers,
 * on their own addresses.  None where two have (private addresses reused
 * in namespaces that do not talk): neither, for sure.
 */
static struct inet *
inet_find(struct sockdiag *d, struct tuple t)
{
	struct inet *m, *found = NULL;
	uint32_t own = t.ns;
	size_t i;

	HASH_FIND(hh, d->inets, &t, sizeof(t), m);
	if (m != NULL || loopback(&t))
		return m;
	for (i = 0; i <= d->nns; i++) {
		t.ns = i < d->nns ? d->nss[i] : 0;
		if (t.ns == own)
			continue;
		HASH_FIND(hh, d->inets, &t, sizeof(t), m);
		if (m != NULL && found != NULL)
			return NULL;
		if (m != NULL)
			found = m;
	}
	return found;
}

/* As inet_listener(), in t's namespace, else in the one other's. */
static uint32_t
inet_listener_any(struct sockdiag *d, struct tuple t)
{
	uint32_t own = t.ns, l, found = 0;
	size_t i;

	if ((l = inet_listener(d, &t)) != 0 || loopback(&t))
		return l;
	for (i = 0; i <= d->nns; i++) {
		t.ns = i < d->nns ? d->nss[i] : 0;
		if (t.ns == own || (l = inet_listener(d, &t)) == 0)
			continue;
		if (found != 0)
			return 0;
		found = l;
	}
	return found;
}

/*
 * The socket with the mirrored pair is the other end, if it is here.  One
 * here without a file (inode 0) waits in a listener's queue: until it is
 * accepted, the listener's holders are the ones to answer.
 */
static void
inet_pair(struct sockdiag *d)
{
	struct inet *e, *tmp, *m;
	struct sockpair *q;
	struct sock *s;
	struct tuple t;
	uint32_t l;

	HASH_ITER(hh, d->inets, e, tmp) {
		if (e->t.dport == 0 || e->ino == 0)
			continue;	/* listening, unconnected, queued */
		t = e->t;
		t.sport = e->t.dport;
		t.dport = e->t.sport;
		memcpy(t.src, e->t.dst, sizeof(t.src));
		memcpy(t.dst, e->t.src, sizeof(t.dst));
		m = inet_find(d, t);
		s = sock_add(d, e->ino, e->t.proto == IPPROTO_TCP ? SK_TCP :
		    SK_UDP);
		s->i.peer = m != NULL ? m->ino : 0;
		s->i.state = e->state;
		endpoint(s->i.local, sizeof(s->i.local), e->t.family,
		    e->t.src, e->t.sport);
		endpoint(s->i.remote, sizeof(s->i.remote), e->t.family,
		    e->t.dst, e->t.dport);
		if (m != NULL && m->ino == 0 && e->t.proto == IPPROTO_TCP)
			s->i.listener = inet_listener(d, &m->t);
		/*
		 * A connect whose handshake a listener here has not answered
		 * (its queue full, it drops the SYN): that listener's.
		 */
		else if (m == NULL && e->t.proto == IPPROTO_TCP &&
		    e->state == TCP_SYN_SENT_STATE)
			s->i.listener = inet_listener_any(d, t);
		/*
		 * A datagram socket connected to one only bound there (a
		 * server's, which answers whoever asks): what this sends
		 * goes to that one, and its answer comes from it.
		 */
		else if (m == NULL && e->t.proto == IPPROTO_UDP)
			s->i.peer = inet_listener_any(d, t);
	}
	HASH_ITER(hh, d->inets, e, tmp)
		if (e->ino != 0)
			sock_add(d, e->ino, e->t.proto == IPPROTO_TCP ?
			    SK_TCP : SK_UDP)->i.listening = e->listening;
	/*
	 * A connection queued on a listener has no file yet: its pair is
	 * the listener's to show, for a peer on another host to meet it.
	 */
	HASH_ITER(hh, d->inets, e, tmp) {
		if (e->ino != 0 || e->t.dport == 0 ||
		    e->t.proto != IPPROTO_TCP || (l = inet_listener(d,
		    &e->t)) == 0)
			continue;
		s = sock_add(d, l, SK_TCP);
		s->i.queued = xrealloc(s->i.queued, (s->i.nqueued + 1) *
		    sizeof(*s->i.queued));
		q = &s->i.queued[s->i.nqueued++];
		endpoint(q->local, sizeof(q->local), e->t.family, e->t.src,
		    e->t.sport);
		endpoint(q->remote, sizeof(q->remote), e->t.family, e->t.dst,
		    e->t.dport);
	}
}

/* The dumps asked for, in the namespace we are in; 1 if any answered. */
static int
dump_all(struct sockdiag *d, int want_unix, int want_inet)
{
	struct inet *before = d->inets;
	int ok = 0;
	struct {
		struct nlmsghdr		nh;
		struct unix_diag_req	r;
	} ureq;

	if (want_unix) {
		memset(&ureq, 0, sizeof(ureq));
		ureq.r.sdiag_family = AF_UNIX;
		ureq.r.udiag_states = ~0u;
		ureq.r.udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS |
		    UDIAG_SHOW_NAME;
		ok |= dump(&ureq, sizeof(ureq), unix_msg, d) == 0;
	}
	if (want_inet) {
		inet_dump(d, AF_INET, IPPROTO_TCP);
		inet_dump(d, AF_INET6, IPPROTO_TCP);
		inet_dump(d, AF_INET, IPPROTO_UDP);
		inet_dump(d, AF_INET6, IPPROTO_UDP);
		ok |= d->inets != before;
	}
	return ok;
}

/*
 * The same dumps in namespace path (/proc/PID/ns/net), entered and left
 * by this thread alone; none where it cannot be entered.  Not coming back
 * would leave every later socket in the wrong namespace: fatal.
 */
static void
dump_in(struct sockdiag *d, int self, const char *path, int want_unix,
    int want_inet)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && setns(fd, CLONE_NEWNET) == 0) {
		d->ns = (uint32_t)st.st_ino;
		d->nss = xrealloc(d->nss, (d->nns + 1) * sizeof(*d->nss));
		d->nss[d->nns++] = d->ns;
		dump_all(d, want_unix, want_inet);
		d->ns = 0;
		if (setns(self, CLONE_NEWNET) == -1)
			die(EX_OSERR, "setns back to our network namespace");
	}
	close(fd);
}

struct sockdiag *
sockdiag_load(int want_unix, int want_inet, const char *const *netns,
    size_t nnetns)
{
	struct sockdiag *d = xcalloc(1, sizeof(*d));
	size_t i;
	int ok, self;

	ok = dump_all(d, want_unix, want_inet);
	if (ok && nnetns > 0 &&
	    (self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) !=
	    -1) {
		for (i = 0; i < nnetns; i++)
			dump_in(d, self, netns[i], want_unix, want_inet);
		close(self);
	}
	if (want_inet) {
		inet_pair(d);
		HASH_FREE(hh, d->inets);
	}
	if (!ok && (want_unix || want_inet)) {
		sockdiag_free(d);
		return NULL;
	}
	return d;
}

const struct sockinfo *
sockdiag_find(const struct sockdiag *d, uint32_t ino)
{
	struct sock *s;

	if (d == NULL)
		return NULL;
	HASH_FIND(hh, d->socks, &ino, sizeof(ino), s);
	return s != NULL ? &s->i : NULL;
}

uint32_t
sockdiag_unix_listener(const struct sockdiag *d, const char *name, size_t len)
{
	struct sock *s, *tmp;
	uint32_t found = 0;
	int n = 0;

	if (d == NULL || len == 0)
		return 0;
	HASH_ITER(hh, d->socks, s, tmp)
		if (s->i.kind == SK_UNIX && s->i.listening && (name[0] == '\0' ?
		    len == s->nname && memcmp(name, s->name, len) == 0 :
		    s->name != NULL && s->name[0] != '\0' &&
		    strnlen(s->name, s->nname) == len &&
		    memcmp(name, s->name, len) == 0)) {
			found = s->i.ino;
			n++;
		}
	/* Two of one name (in two mount namespaces): neither, for sure. */
	return n == 1 ? found : 0;
}

const char *
sock_kind_name(enum sock_kind k)
{
	switch (k) {
	case SK_UNIX: return "unix";
	case SK_TCP: return "tcp";
	case SK_UDP: return "udp";
	default: return "socket";
	}
}

void
sockdiag_free(struct sockdiag *d)
{
	if (d == NULL)
		return;
	HASH_FREE_OWN(hh, d->socks, s, s->i.queued, s->name);
	free(d->nss);
	free(d);
}
