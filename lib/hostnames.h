/*
 * The hosts of a merged stream (lib/hosts.h) as its readers learn them:
 * apart from the merge, so that the record parser (lib/event.c) learns
 * them without depending on what merges.
 */
#ifndef ARGUS_HOSTNAMES_H
#define ARGUS_HOSTNAMES_H

#include <stdint.h>

#include "stream.h"

#define HOST_PID_STRIDE	10000000u	/* above the kernel's PID_MAX_LIMIT */
#define META_HOST	"host"

/* The host (0 first) a PID or TID of a merged stream is of. */
#define HOST_OF(id)	((id) / HOST_PID_STRIDE)

/*
 * A merged stream's hosts by their meta host records (event_parse learns
 * them): the name of the host of a PID or TID, NULL in a stream of one.
 */
void		 host_learn(const struct record *);
const char	*host_name(uint32_t id);
int		 host_of_cpu(uint32_t cpu);	/* 0 in a stream of one */
int		 host_count(void);

#endif
