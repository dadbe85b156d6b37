/*
 * A merged stream's hosts, by the meta host records lib/hosts.c writes
 * (argus-cat(1)): each host's number, name and first CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "hostnames.h"
#include "util.h"

static char	**names;
static uint64_t	 *cpubases;
static size_t	  nnames;

void
host_learn(const struct record *rec)
{
	uint64_t k;

	if (!record_u64_opt(rec, HOST_INDEX, &k) || k > 4096)
		return;
	if (k >= nnames) {
		names = xrealloc(names, (k + 1) * sizeof(*names));
		memset(names + nnames, 0, (k + 1 - nnames) * sizeof(*names));
		cpubases = xrealloc(cpubases, (k + 1) * sizeof(*cpubases));
		memset(cpubases + nnames, 0, (k + 1 - nnames) *
		    sizeof(*cpubases));
		nnames = k + 1;
	}
	if (names[k] == NULL) {
		names[k] = xstrdup(record_str(rec, HOST_NAME));
		record_u64_opt(rec, HOST_CPU_BASE, &cpubases[k]);
	}
}

int
host_of_cpu(uint32_t cpu)
{
	size_t k;

	for (k = nnames; k-- > 1; )
		if (names[k] != NULL && cpubases[k] > 0 && cpu >= cpubases[k])
			return k;
	return 0;
}

int
host_count(void)
{
	return nnames ? (int)nnames : 1;
}

const char *
host_name(uint32_t id)
{
	return HOST_OF(id) < nnames ? names[HOST_OF(id)] : NULL;
}
