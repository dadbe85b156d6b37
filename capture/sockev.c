/*
 * Socket events.  inet_sock_set_state names a connection by its address
 * pair, the kernel's own view of it: LOCAL is this host's end.  The sends
 * and receives name only the socket, by the same kernel address
 * (SKADDR), which is how a reader ties them to the pair.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "util.h"
#include "stream.h"
#include "events.h"

#define LOAD(type, p)	({ type v_; memcpy(&v_, (p), sizeof(v_)); v_; })

/*
 * sock_state's columns, and the fields it USEs after them in the order
 * lib/events.def lists them (sockev_check).
 */
enum { F_SADDR = ECOL(E_SOCK_STATE, LOCAL),
	F_DADDR = ECOL(E_SOCK_STATE, REMOTE),
	F_FAMILY, F_SPORT, F_DPORT, F_SADDR6, F_DADDR6 };

static uint64_t
u(const char *d, const struct field *f)
{
	switch (f->size) {
	case 1: return LOAD(uint8_t, d + f->off);
	case 2: return LOAD(uint16_t, d + f->off);
	case 4: return LOAD(uint32_t, d + f->off);
	default: return LOAD(uint64_t, d + f->off);
	}
}

static const uint8_t v4mapped[12] = { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };

/* 10.0.0.7:5432, [2001:db8::7]:5432; a v4-mapped address as v4. */
static void
endpoint(char *buf, size_t size, const char *d, const struct field *f,
    int v4, int v6, int port)
{
	char a[INET6_ADDRSTRLEN];
	const uint8_t *p;
	int family = f[F_FAMILY].off >= 0 ? (int)u(d, &f[F_FAMILY]) : AF_INET;

	if (family == AF_INET6 && f[v6].off >= 0) {
		p = (const uint8_t *)d + f[v6].off;
		if (memcmp(p, v4mapped, 12) != 0) {
			inet_ntop(AF_INET6, p, a, sizeof(a));
			snprintf(buf, size, "[%s]:%u", a,
			    (unsigned)u(d, &f[port]));
			return;
		}
		p += 12;
	} else if (f[v4].off >= 0)
		p = (const uint8_t *)d + f[v4].off;
	else {
		snprintf(buf, size, "?:%u", (unsigned)u(d, &f[port]));
		return;
	}
	inet_ntop(AF_INET, p, a, sizeof(a));
	snprintf(buf, size, "%s:%u", a, (unsigned)u(d, &f[port]));
}

void
sockev_col(struct writer *w, int kind, int i, const char *d,
    const struct field *f)
{
	char buf[INET6_ADDRSTRLEN + 16];

	switch (kind) {
	case EK_TCPSTATE:
		writer_str(w, f[i].off < 0 ? "" : tcp_state_name(u(d, &f[i])));
		break;
	case EK_PROTO:
		writer_str(w, f[i].off < 0 ? "" :
		    u(d, &f[i]) == IPPROTO_TCP ? "tcp" :
		    u(d, &f[i]) == IPPROTO_SCTP ? "sctp" :
		    u(d, &f[i]) == IPPROTO_MPTCP ? "mptcp" : "?");
		break;
	case EK_ENDPOINT:
		if (i == F_SADDR)
			endpoint(buf, sizeof(buf), d, f, F_SADDR, F_SADDR6,
			    F_SPORT);
		else
			endpoint(buf, sizeof(buf), d, f, F_DADDR, F_DADDR6,
			    F_DPORT);
		writer_str(w, buf);
		break;
	}
}

void
sockev_check(void)
{
	static const struct {
		int		 i;
		const char	*name;
	} want[] = { { F_FAMILY, "family" }, { F_SPORT, "sport" },
	    { F_DPORT, "dport" }, { F_SADDR6, "saddr_v6" },
	    { F_DADDR6, "daddr_v6" } };
	size_t i;

	for (i = 0; i < ARRAY_LEN(want); i++)
		if (edef_col(E_SOCK_STATE, want[i].name) != want[i].i)
			diex(EX_SOFTWARE, "lib/events.def: sock_state's %s is "
			    "not where capture/sockev.c reads it",
			    want[i].name);
}

/* This network namespace's addresses, read once. */
static struct ifaddrs	*ifs;
static int		 ifs_read;

int
sockev_local(int e, const char *d, const struct field *f)
{
	const struct ifaddrs *i;
	const uint8_t *p;
	int family, len;

	if (e != E_SOCK_STATE || f[F_SADDR].off < 0)
		return 0;
	if (!ifs_read) {
		ifs_read = 1;
		if (getifaddrs(&ifs) == -1)
			ifs = NULL;
	}
	family = f[F_FAMILY].off >= 0 ? (int)u(d, &f[F_FAMILY]) : AF_INET;
	p = (const uint8_t *)d + f[F_SADDR].off;
	len = 4;
	if (family == AF_INET6 && f[F_SADDR6].off >= 0) {
		p = (const uint8_t *)d + f[F_SADDR6].off;
		if (memcmp(p, v4mapped, 12) == 0)
			p += 12;
		else
			len = 16;
	}
	/* Every namespace has a loopback: its address says nothing of whose. */
	if ((len == 4 && p[0] == 127) || (len == 16 &&
	    memcmp(p, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16) == 0))
		return -1;
	for (i = ifs; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (len == 4 && i->ifa_addr->sa_family == AF_INET &&
		    memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr,
		    p, 4) == 0)
			return 1;
		if (len == 16 && i->ifa_addr->sa_family == AF_INET6 &&
		    memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
		    p, 16) == 0)
			return 1;
	}
	return 0;
}
