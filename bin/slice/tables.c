/*
 * The tables a packed vertex or link is read through (tables.h): graph.c
 * fills them while it reads the graph, every other file reads them.
 */
#include <stdlib.h>

#include "util.h"

#include "tables.h"

struct tables graph_tables;

/*
 * The vertices' values that their fields cannot hold, by place and field:
 * open addressing on the key, 0 an empty slot, at most half full.
 */
struct vfar {
	uint64_t	 key;		/* place << 3 | VF_*, plus 1 */
	uint64_t	 val;
};
static struct vfar	*vfar;
static size_t		 nvfar, vfar_slots;

static size_t
vfar_hash(uint64_t key, size_t mask)
{
	return (key * GOLDEN64 >> 32) & mask;
}

static uint64_t *
vfar_slot(uint32_t place, int field, int make)
{
	struct vfar *old = vfar;
	uint64_t key = ((uint64_t)place << 3 | field) + 1;
	size_t i, j, mask, n = vfar_slots;

	if (make && 2 * (nvfar + 1) > vfar_slots) {
		vfar_slots = vfar_slots ? 2 * vfar_slots : 256;
		vfar = xcalloc(vfar_slots, sizeof(*vfar));
		mask = vfar_slots - 1;
		for (j = 0; j < n; j++) {
			if (old[j].key == 0)
				continue;
			for (i = vfar_hash(old[j].key, mask); vfar[i].key != 0;
			    i = (i + 1) & mask)
				;
			vfar[i] = old[j];
		}
		free(old);
	}
	if (vfar_slots == 0)
		return NULL;
	mask = vfar_slots - 1;
	for (i = vfar_hash(key, mask); vfar[i].key != 0; i = (i + 1) & mask)
		if (vfar[i].key == key)
			return &vfar[i].val;
	if (!make)
		return NULL;
	nvfar++;
	vfar[i].key = key;
	vfar[i].val = 0;
	return &vfar[i].val;
}

uint64_t
vertex_far(const struct vertex *v, int field)
{
	const uint64_t *p = vfar_slot(v - graph_tables.v, field, 0);

	return p != NULL ? *p : 0;
}

void
vertex_far_set(uint32_t place, int field, uint64_t val)
{
	*vfar_slot(place, field, 1) = val;
}

/* The tables are in the order of k, as the links were read. */
const struct link_far *
link_far_find(const struct link_far *t, size_t n, uint32_t k)
{
	size_t lo = PARTITION_POINT(n, i, t[i].k < k);

	if (lo == n || t[lo].k != k)
		diex(EX_SOFTWARE, "link %u: not in its table", k);
	return &t[lo];
}
