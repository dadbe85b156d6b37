/*
 * What the files of the runtime providers share (waitfor_provider.c says
 * what a provider is): the providers found, each one's run, and the
 * functions one file takes from another.  Not an interface: waitfor.h is.
 */
#ifndef CAPTURE_WAITFOR_PROV_H
#define CAPTURE_WAITFOR_PROV_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <uthash.h>

#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"

#define MAX_PROVIDERS	32
_Static_assert(MAX_PROVIDERS <= 32, "providers are bits of a word");
#define MAX_NAMES	16
#define HEADER_SIZE	4096
#define STDERR_KEEP	2048
#define NOTE_SIZE	512
#define DEFAULT_NS	1000000000ULL
#define PROVIDER_NICE	(-10)
#define HEADER_SUFFIX	".header"

/* The header's keys, in a comment line of a script or in NAME.header. */
#define HDR_SAYS	"argus-says:"
#define HDR_MATCH	"argus-match:"

enum mkind { MK_EXE, MK_MAP, MK_COMM, MK_N };

struct provider {
	char		 name[NAME_MAX + 1];
	char		 path[PATH_MAX];
	char		 says[RUNTIME_NAMELEN];
	char		*names[MK_N][MAX_NAMES];
	int		 nnames[MK_N];
	/* A run. */
	char		*in, *out, *err;
	size_t		 inlen, inoff, outlen, outcap, errlen;
	int		 fin, fout, ferr;
	pid_t		 pid;
	int		 status, reaped, killed, capped, nwaits, nprocs;
	uint64_t	 t0, ns;
	char		**objs;		/* the objects it was asked about */
	size_t		 nobjs;
};

/* Which providers speak for a process, looked at once. */
struct pmatch {
	int		 pid;
	uint32_t	 provs;
	UT_hash_handle	 hh;
};

struct wf_prov {
	struct provider	 p[MAX_PROVIDERS];
	int		 np;
	struct pmatch	*match;
	char		**notes;	/* "KEY\tVALUE", meta records */
	size_t		 nnotes;
};

/* waitfor_provider.c: a meta record of the snapshot, KEY and text. */
void		 wfp_note(struct wf_prov *, const char *key, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

/* waitfor_provfind.c: the providers, and which speak for a process. */
void		 wfp_find(struct wf_prov *, const struct wf_opts *);
uint32_t	 wfp_match(struct wf_snap *, struct wf_prov *, int pid);

/* waitfor_provrun.c: all of them at once, bounded. */
void		 wfp_append(char **buf, size_t *len, size_t *cap, const char *s,
		    size_t n);
void		 wfp_run(struct wf_prov *, const struct wf_opts *);

#endif
