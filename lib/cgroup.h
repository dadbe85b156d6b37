/*
 * Where a process runs: its cgroup v2 path (/proc/PID/cgroup, the "0::"
 * line), which the capture writes in its task records (argus-stream(5)),
 * and what that path says of it: the systemd unit, the container.
 */
#ifndef ARGUS_CGROUP_H
#define ARGUS_CGROUP_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define CGROUP_MAX	4096		/* PATH_MAX: what a path may take */
#define CONTAINER_SHORT	12		/* an id as docker ps shows it */

/*
 * The cgroup v2 path of process pid into buf, NUL-terminated: its
 * length, or -1 (the process is gone, or no cgroup v2 is mounted).
 */
ssize_t		 cgroup_read(int pid, char *buf, size_t size);

/*
 * The systemd unit a cgroup path names (its last component that is a
 * .service, .scope or .socket), and the container (docker's, podman's,
 * containerd's, CRI-O's id: 64 hex digits), into buf; "" if none.
 */
const char	*cgroup_unit(const char *path, char *buf, size_t size);
const char	*cgroup_container(const char *path, char *buf, size_t size);

/*
 * What a report says of where a process runs: "container ID" (short),
 * else "unit NAME", else NULL.  A login session's scope (session-N.scope)
 * is where every command typed at a terminal runs, so it says nothing
 * and is left out; the JSON's unit still names it.
 */
const char	*cgroup_where(const char *path, char *buf, size_t size);

/* One copy of each path, kept for good: a unit's processes share it. */
const char	*cgroup_intern(const char *path);

/*
 * Readers: each process's cgroup as its latest task record says it
 * (a stream written before the column: none).  NULL: unknown.
 */
void		 cgroup_learn(const struct record *);
const char	*cgroup_of(uint32_t pid);

#endif
