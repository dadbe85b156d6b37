/*
 * Sockets as the kernel's sock_diag sees them: for a socket inode, its
 * kind and the inode of the socket at the other end.  Unix sockets name
 * their peer (UNIX_DIAG_PEER), and a listener its address and the
 * connections queued on it and not yet accepted (UNIX_DIAG_ICONS); TCP
 * and UDP sockets on this machine are paired by their mirrored address
 * and port pairs (inet_diag), within a network namespace, or across two
 * where the connection is routed between them (a container's); a UDP
 * socket connected to one only bound, with that one.
 */
#ifndef CAPTURE_SOCKDIAG_H
#define CAPTURE_SOCKDIAG_H

#include <stddef.h>
#include <stdint.h>

enum sock_kind { SK_OTHER, SK_UNIX, SK_TCP, SK_UDP };

struct sockinfo {
	uint32_t	 ino;
	uint32_t	 peer;		/* 0: none known */
	uint32_t	 listener;	/* a queued connection's listener, or 0;
					   for TCP, on the connecting end */
	uint8_t		 listening;	/* waits for connections */
	enum sock_kind	 kind;
	/* TCP and UDP: this end's address and port, and the peer's. */
	char		 local[64], remote[64];
	uint8_t		 state;		/* the kernel's TCP_ number */
	/*
	 * A TCP listener: the connections queued on it, not accepted yet,
	 * this end's pair and the peer's (which may be on another host).
	 */
	struct sockpair {
		char	 local[64], remote[64];
	}		*queued;
	int		 nqueued;
};

struct sockdiag;
/*
 * Both dumps are one request each, in our network namespace and in each
 * of netns[0, nnetns) (paths of /proc/PID/ns/net); NULL if the kernel
 * refused them all in ours.
 */
struct sockdiag	*sockdiag_load(int want_unix, int want_inet,
		    const char *const *netns, size_t nnetns);
const struct sockinfo *sockdiag_find(const struct sockdiag *, uint32_t ino);
/*
 * The one unix listener bound to name[0, len): a path as its binder gave
 * it (no NUL), or an abstract name (name[0] is NUL); 0 if none, or more
 * than one (two mount namespaces' sockets of one path).
 */
uint32_t	 sockdiag_unix_listener(const struct sockdiag *, const char *name,
		    size_t len);
const char	*sock_kind_name(enum sock_kind);
void		 sockdiag_free(struct sockdiag *);

#endif
