/*
 * The names of kernel functions, as the stream's ksym records give them.
 * A stream holds few (a timer's or work item's function each), but a
 * ring read whole repeats them in every file: a name is kept once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idhash.h"
#include "ksym.h"
#include "show.h"
#include "util.h"

struct ksym {
	uint64_t	 addr;
	char		*name;
	UT_hash_handle	 hh;
};

static struct ksym	*ksyms;
unsigned		 ksym_learnt;

void
ksym_write(struct writer *w, uint64_t addr, const char *name)
{
	writer_begin(w, KSYM_KIND);
	writer_empty(w);	/* TIME: a name is not about a moment */
	writer_empty(w);
	writer_empty(w);
	writer_hex(w, addr);
	writer_str(w, name);
	writer_end(w);
}

/*
 * "0x" and 1 to 16 hex digits, nothing else: the capture's addresses.
 * Read here, not by strspn() and strtoull(), which cost a timer's every
 * arming (event_func()) more than its rule did.
 */
static int
parse_addr(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	unsigned c, d;
	size_t n;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	for (n = 0; n <= 16; n++) {
		c = (unsigned char)s[2 + n];
		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | d;
	}
	if (n == 0 || n > 16 || s[2 + n] != '\0')
		return 0;
	*v = x;
	return 1;
}

int
ksym_learn(const struct record *rec)
{
	struct ksym *k;
	const char *name;
	uint64_t addr;

	if (!record_is(rec, KSYM_KIND))
		return 0;
	if (!parse_addr(record_str(rec, KC_ADDRESS), &addr))
		diex(EX_DATAERR, "%s:%lu: ksym: '%s' is not a 0x address",
		    rec->file, rec->line, show(record_str(rec, KC_ADDRESS)));
	if (*(name = record_str(rec, KC_NAME)) == '\0')
		diex(EX_DATAERR, "%s:%lu: ksym %s: no name", rec->file,
		    rec->line, rec->f[KC_ADDRESS]);
	HASH_FIND(hh, ksyms, &addr, sizeof(addr), k);
	if (k != NULL && strcmp(k->name, name) == 0)
		return 1;
	if (k == NULL) {
		k = xcalloc(1, sizeof(*k));
		k->addr = addr;
		HASH_ADD(hh, ksyms, addr, sizeof(k->addr), k);
	} else
		free(k->name);	/* a later capture, another kernel */
	k->name = xstrdup(name);
	ksym_learnt++;
	return 1;
}

const char *
ksym_name(const char *field)
{
	uint64_t addr;

	if (ksyms == NULL || !parse_addr(field, &addr))
		return field;
	return ksym_name_at(addr, field);
}

/*
 * The last one found is asked first: a timer is armed again and again
 * for one function.  A ksym is never freed, and a later name for its
 * address replaces its name in place.
 */
const char *
ksym_name_at(uint64_t addr, const char *field)
{
	static struct ksym *last;
	struct ksym *k;

	if (last != NULL && last->addr == addr)
		return last->name;
	HASH_FIND(hh, ksyms, &addr, sizeof(addr), k);
	if (k == NULL)
		return field;
	return (last = k)->name;
}
