/*
 * Captures of several hosts in one stream (argus-cat(1)): each host's
 * PIDs and TIDs moved by HOST_PID_STRIDE times its number, and its CPUs
 * past the hosts' before it, so that equal PIDs and CPUs of two machines
 * never meet and every stage works unchanged, and its clock brought to
 * the first host's by the connections they share.
 */
#ifndef ARGUS_HOSTS_H
#define ARGUS_HOSTS_H

#include <stdint.h>

#include "hostnames.h"
#include "stream.h"

/*
 * After meta hostname, what else says which host a stream is of: the
 * machine's boot (meta boot_id), and the network namespace (meta netns),
 * a host of its own to its peers.
 */
void		 meta_identity(struct writer *, uint64_t time);

struct hosts;
/*
 * The hosts of these files, by their meta hostname, boot_id and netns,
 * and their clocks' offsets; NULL if all are of one host (or say none).
 * require: two or more hosts or an error.  An offset no shared
 * connection bounds from both sides is an error, naming the files.
 */
struct hosts	*hosts_plan(char **paths, int npaths, int require);
void		 hosts_merge(struct hosts *, struct writer *);
void		 hosts_free(struct hosts *);


#endif
