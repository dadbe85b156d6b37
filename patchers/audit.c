/*
 * libargus-audit.so: the loader's auditor (rtld-audit(7), LD_AUDIT) that
 * has the patcher place the probes of libraries loaded after start-up.
 *
 * The loader calls la_activity(LA_ACT_CONSISTENT) once a dlopen() has
 * mapped its objects and listed them, before it relocates them and runs
 * their constructors, with its lock held: no thread can be running their
 * code yet, and no other dlopen() runs meanwhile.  That is the safe point
 * to patch them.  la_objclose comes before an object is unmapped: its
 * sites are forgotten, so that loaded again it is patched again.
 *
 * An auditor lives in a namespace of its own, with its own copy of the C
 * library; the patcher lives in the program's.  The loader shows the
 * auditor every object it opens (la_objopen): the patcher's load address
 * and file, whose symbol table gives its two entry points (dlsym() would
 * not do: a preloaded object's link_map has no search list to be a
 * handle with).  No symbol
 * binding is audited (la_objopen returns 0), so calls through the PLT
 * cost what they cost without an auditor.
 */
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

#define EXPORT	__attribute__((visibility("default")))

static struct link_map	*patcher;
static void		(*rescan)(void);
static void		(*unmapped)(uintptr_t);
static int		 started;	/* la_preinit: the program's objects
					   are relocated */

EXPORT unsigned int
la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

EXPORT unsigned int
la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *base;

	*cookie = (uintptr_t)map;
	if (lmid == LM_ID_BASE && patcher == NULL && map->l_name != NULL) {
		base = strrchr(map->l_name, '/');
		if (strcmp(base ? base + 1 : map->l_name,
		    "libargus-patch.so") == 0)
			patcher = map;
	}
	return 0;
}

EXPORT void
la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	started = 1;
}

/* lib/elfsym.c's allocators: NULL reads as failure there. */
__attribute__((visibility("hidden"))) void *
xcalloc(size_t n, size_t size)
{
	return calloc(n, size);
}

__attribute__((visibility("hidden"))) void *
xrealloc(void *p, size_t size)
{
	return realloc(p, size);
}

static uintptr_t
entry(const char *name)
{
	uint64_t value, size;
	int pie;

	if (elf_symbol(patcher->l_name, name, &value, &size, &pie) == -1 ||
	    value == 0)
		return 0;
	return (pie ? patcher->l_addr : 0) + value;
}

/* The patcher's entry points, once the program's objects are relocated:
 * not before, for the patcher's code calls through its PLT. */
static int
resolve(void)
{
	static int tried;

	if (patcher == NULL || !started)
		return 0;
	if (!tried) {
		tried = 1;
		rescan = (void (*)(void))entry("argus_patch_rescan");
		unmapped = (void (*)(uintptr_t))entry("argus_patch_unmapped");
	}
	return rescan != NULL && unmapped != NULL;
}

EXPORT void
la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (flag == LA_ACT_CONSISTENT && resolve())
		rescan();
}

EXPORT unsigned int
la_objclose(uintptr_t *cookie)
{
	struct link_map *map = (struct link_map *)*cookie;

	if (map == patcher) {
		patcher = NULL;
		rescan = NULL;
		unmapped = NULL;
	} else if (map != NULL && resolve())
		unmapped(map->l_addr);
	return 0;
}
