/*
 * /proc/kallsyms, read once before tracing starts: some 100,000 text
 * symbols sorted by address.  An event's function is looked up in a small
 * hash table of the addresses seen so far, so that the hot path pays one
 * probe per function-carrying event; only an address never seen before
 * pays a binary search.  A module loaded after the start is not named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"
#include "util.h"
#include "kallsyms.h"

#define KALLSYMS	"/proc/kallsyms"
#define MAX_OFFSET	(1 << 20)	/* past that, not inside the function */

struct sym {
	uint64_t	 addr;
	uint32_t	 name;		/* offset into pool */
	uint32_t	 order;		/* in the file: the first alias wins */
};

struct slot {
	uint64_t	 addr;		/* 0: empty */
	const char	*name;		/* NULL: no symbol */
	uint32_t	 file;		/* the file that has its ksym record */
};

static struct sym	*syms;
static size_t		 nsyms;
static char		*pool;
static size_t		 npool, poolcap;
static struct slot	*slots;
static size_t		 nslots, used;
static uint32_t		 file = 1;

static uint32_t
intern(const char *s, size_t n)
{
	size_t off = npool;

	if (npool + n + 1 > poolcap) {
		poolcap = (npool + n + 1) * 2;
		pool = xrealloc(pool, poolcap);
	}
	memcpy(pool + npool, s, n);
	pool[npool + n] = '\0';
	npool += n + 1;
	return off;
}

static int
by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * "ffffffff8141e4b0 t hrtimer_wakeup", or with "\t[module]" after it: a
 * text symbol, named as the kernel's %ps names it, "name [module]".
 */
static int
parse_line(char *line, uint64_t *addr, char *name, size_t size)
{
	char *p, *mod;

	*addr = strtoull(line, &p, 16);
	if (p == line || p[0] != ' ' || p[1] == '\0' || p[2] != ' ' ||
	    strchr("tTwW", p[1]) == NULL)
		return 0;
	p += 3;
	p[strcspn(p, "\n")] = '\0';
	if ((mod = strchr(p, '\t')) != NULL) {
		*mod++ = '\0';
		mod += strspn(mod, " \t");
	}
	if (*p == '\0')
		return 0;
	snprintf(name, size, "%s%s%s", p, mod != NULL ? " " : "",
	    mod != NULL ? mod : "");
	return 1;
}

size_t
kallsyms_load(void)
{
	FILE *f;
	char *line = NULL, name[512];
	size_t cap = 0, n = 0, i, j, linecap = 0;
	uint64_t addr;
	int nonzero = 0;

	if ((f = fopen(KALLSYMS, "re")) == NULL) {
		warnx_("%s: cannot read it: kernel functions stay addresses",
		    KALLSYMS);
		return 0;
	}
	while (getline(&line, &linecap, f) != -1) {
		if (!parse_line(line, &addr, name, sizeof(name)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			syms = xrealloc(syms, cap * sizeof(*syms));
		}
		syms[n].addr = addr;
		syms[n].name = intern(name, strlen(name));
		syms[n].order = n;
		n++;
		nonzero |= addr != 0;
	}
	free(line);
	fclose(f);
	if (!nonzero) {
		/* kernel.kptr_restrict, or not root: every address reads 0. */
		warnx_("%s: addresses hidden (kernel.kptr_restrict): kernel "
		    "functions stay addresses", KALLSYMS);
		free(syms);
		free(pool);
		syms = NULL;
		pool = NULL;
		npool = poolcap = 0;
		return 0;
	}
	qsort(syms, n, sizeof(*syms), by_addr);
	for (i = j = 0; i < n; i++)
		if (j == 0 || syms[i].addr != syms[j - 1].addr)
			syms[j++] = syms[i];
	nsyms = j;
	nslots = 256;
	slots = xcalloc(nslots, sizeof(*slots));
	return nsyms;
}

void
kallsyms_new_file(void)
{
	file++;
}

/* The function addr is in, by name ("name+0x10" inside it); NULL if none. */
static const char *
resolve(uint64_t addr)
{
	/* The first symbol past addr. */
	size_t lo = PARTITION_POINT(nsyms, i, syms[i].addr <= addr);
	const struct sym *s;
	const char *name;
	char buf[600];
	size_t n;

	if (lo == 0)
		return NULL;
	s = &syms[lo - 1];
	if (s->addr == addr)
		return pool + s->name;
	if (lo == nsyms || addr - s->addr >= MAX_OFFSET)
		return NULL;
	/* The offset goes before a module's " [module]", as in %pS. */
	name = pool + s->name;
	n = strcspn(name, " ");
	snprintf(buf, sizeof(buf), "%.*s+0x%llx%s", (int)n, name,
	    (unsigned long long)(addr - s->addr), name + n);
	return xstrdup(buf);
}

static struct slot *
probe(struct slot *tab, size_t size, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 32) & (size - 1);

	while (tab[i].addr != 0 && tab[i].addr != addr)
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static void
grow(void)
{
	struct slot *old = slots, *s;
	size_t i, n = nslots;

	nslots *= 2;
	slots = xcalloc(nslots, sizeof(*slots));
	for (i = 0; i < n; i++)
		if (old[i].addr != 0) {
			s = probe(slots, nslots, old[i].addr);
			*s = old[i];
		}
	free(old);
}

void
kallsyms_name(struct writer *w, uint64_t addr)
{
	struct slot *s;

	if (nsyms == 0 || addr == 0)
		return;
	s = probe(slots, nslots, addr);
	if (s->addr == 0) {
		s->addr = addr;
		s->name = resolve(addr);
		if (++used * 2 > nslots) {
			grow();
			s = probe(slots, nslots, addr);
		}
	}
	if (s->name == NULL || s->file == file)
		return;
	s->file = file;
	ksym_write(w, addr, s->name);
}
