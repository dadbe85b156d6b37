/*
 * The event graph in memory.  Vertices live in an array in the order they
 * are met, links in an array too, chained per destination.  Vertex ids
 * are whatever the stream says (argus-segment numbers them densely, a
 * filter need not), so an open-addressed table maps an id to its place:
 * one record with a huge id costs one slot, not an array that large.
 * Strings (names, rules, system calls) are interned, so that the
 * millions of vertices of a long capture fit in memory.
 */
#include <sys/mman.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idhash.h"

#include "cgroup.h"
#include "hosts.h"
#include "ksym.h"
#include "names.h"
#include "show.h"
#include "slice.h"
#include "waits.h"

/*
 * Interned strings: by_id[id] is the string, and an open-addressed table
 * (at most half full) finds the id of a string by its FNV-1a hash.  A
 * record interns a few, so this costs what a hash of a short string and
 * one compare cost.
 */
static char		**by_id;
static uint32_t		 nstrs = 1, capstrs;	/* 0 is "" */
static uint32_t		*str_slot;		/* ids; 0 an empty slot */
static size_t		 nstr_slots;

static uint32_t
str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void
str_slots_grow(void)
{
	size_t i, mask;
	uint32_t id;

	free(str_slot);
	nstr_slots = nstr_slots ? 2 * nstr_slots : 1024;
	str_slot = xcalloc(nstr_slots, sizeof(*str_slot));
	mask = nstr_slots - 1;
	for (id = 1; id < nstrs; id++) {
		for (i = str_hash(by_id[id]) & mask; str_slot[i] != 0;
		    i = (i + 1) & mask)
			;
		str_slot[i] = id;
	}
}

uint32_t
str_id(const char *s)
{
	size_t i, mask;
	uint32_t id;

	if (*s == '\0')
		return 0;
	if (2 * (size_t)nstrs >= nstr_slots)
		str_slots_grow();
	mask = nstr_slots - 1;
	for (i = str_hash(s) & mask; (id = str_slot[i]) != 0; i = (i + 1) & mask)
		if (name_eq(by_id[id], s))
			return id;
	if (nstrs == UINT32_MAX)
		diex(EX_SOFTWARE, "more than %u distinct names", UINT32_MAX - 1);
	if (nstrs >= capstrs) {
		capstrs = capstrs ? 2 * capstrs : 1024;
		by_id = xrealloc(by_id, capstrs * sizeof(*by_id));
	}
	by_id[nstrs] = xstrdup(s);
	str_slot[i] = nstrs;
	return nstrs++;
}

/*
 * The same for a field of the reader's own, with 8 bytes readable past
 * each of its bytes (lib/util.h: nameidx_find_padded()): a name met
 * before (a call's at each call, a rule's at each link) is found by its
 * bytes read as two words, not by a hash of it and a compare.
 */
#define STR_MEMO	256	/* a power of 2 */

static uint32_t
str_id_padded(const char *s, size_t len)
{
	static struct {
		uint64_t	 head, tail;
		uint32_t	 len, id;
	} memo[STR_MEMO];
	uint64_t head, tail;
	size_t i;

	if (len == 0 || len > 16)
		return str_id(s);
	i = padded_words(s, len, &head, &tail) >> 56 & (STR_MEMO - 1);
	if (memo[i].len != len || memo[i].head != head ||
	    memo[i].tail != tail) {
		memo[i].head = head;
		memo[i].tail = tail;
		memo[i].len = len;
		memo[i].id = str_id(s);
	}
	return memo[i].id;
}

/*
 * A field's length, as record_len(), and the last one's with no strlen():
 * an unquoted record's fields are its bytes one after another, each comma
 * a NUL, so the last ends where the record does (a vertex's COMM, one a
 * vertex).
 */
static inline size_t
field_len(const struct record *rec, size_t col)
{
	if (rec->padded && !rec->quoted && col + 1 == rec->nf)
		return rec->f[0] + rec->rawlen - rec->f[col];
	return record_len(rec, col);
}

/* A field's interned id, by the memo where the reader padded it. */
static uint32_t
str_id_field(const struct record *rec, const char *s, size_t len)
{
	return rec->padded ? str_id_padded(s, len) : str_id(s);
}

const char *
str_of(uint32_t id)
{
	return id == 0 || id >= nstrs ? "" : by_id[id];
}

/*
 * Where ids are dense (argus-segment's, 1, 2, 3, ...) their places are an
 * array by id: a lookup is a load, with no vertex to read its id from (a
 * miss in a big graph), and growing it moves its pages, where a table
 * was copied into one twice its size, whose pages were new ones to fault
 * in.  It grows only for an id that keeps it dense (AT_SPARE more ids
 * than vertices at most); any other id goes to an open-addressed table.
 */
#define AT_SPARE	65536

static size_t
id_slot(const struct graph *g, uint64_t id)
{
	return (id ^ (id >> g->bits) * GOLDEN64) & g->mask;
}

/* Where id lives in v; 0 if it was never met. */
static inline uint32_t
place_of(const struct graph *g, uint64_t id)
{
	size_t i, mask;
	uint32_t p;

	if (id < g->nat && (p = g->at[id]) != 0)
		return p;
	/*
	 * An id of the table stays there when the array grows past it: a
	 * slot holds only the place, the id being the vertex's own.
	 */
	if (g->nfar_at == 0)
		return 0;
	mask = g->mask;
	for (i = id_slot(g, id); (p = g->far_at[i]) != 0; i = (i + 1) & mask)
		if (vertex_id(&g->v[p]) == id)
			return p;
	return 0;
}

static void
far_at_add(struct graph *g, uint32_t place)
{
	size_t i, mask = g->mask;

	for (i = id_slot(g, vertex_id(&g->v[place])); g->far_at[i] != 0;
	    i = (i + 1) & mask)
		;
	g->far_at[i] = place;
}

/* At most three quarters full, so that a miss ends soon. */
static void
far_at_grow(struct graph *g)
{
	uint32_t *at = g->far_at;
	size_t i, old = g->bits ? (size_t)1 << g->bits : 0;

	g->bits = g->bits ? g->bits + 1 : 12;
	g->mask = ((size_t)1 << g->bits) - 1;
	g->far_at = xcalloc((size_t)1 << g->bits, sizeof(*g->far_at));
	for (i = 0; i < old; i++)
		if (at[i] != 0)
			far_at_add(g, at[i]);
	free(at);
}

/*
 * Place's vertex has its id already, a new one.  The array's room grows
 * by realloc() (pages moved, not copied, once it is big), and is zeroed
 * only as far as the ids put there: a page is touched when an id needs it.
 */
static void
place_add(struct graph *g, uint64_t id, uint32_t place)
{
	if (id >= g->nat && id < g->nv + AT_SPARE) {
		if (id >= g->capat) {
			g->capat = g->capat ? 2 * g->capat : AT_SPARE;
			if (g->capat <= id)
				g->capat = id + 1;
			g->at = xrealloc(g->at, g->capat * sizeof(*g->at));
		}
		/* The ids skipped; dense ids skip none, id's is set below. */
		if (id > g->nat)
			memset(g->at + g->nat, 0, (id - g->nat) *
			    sizeof(*g->at));
		g->nat = id + 1;
	}
	if (id < g->nat) {
		g->at[id] = place;
		return;
	}
	if (4 * (g->nfar_at + 1) >= 3 * ((uint64_t)1 << g->bits))
		far_at_grow(g);
	far_at_add(g, place);
	g->nfar_at++;
}

static void
set_far(struct graph *g, struct vertex *v, int field, uint64_t val)
{
	vertex_far_set(v - g->v, field, val);
}

/* A time for a 32-bit field: itself, or VX_FAR and the table. */
static uint32_t
time32(struct graph *g, struct vertex *v, int field, uint64_t t)
{
	if (t < VX_FAR)
		return (uint32_t)t;
	set_far(g, v, field, t);
	return VX_FAR;
}

/*
 * The words and names met; the first of each is "", a vertex's before its
 * record is read.
 */
static uint8_t		 nwords = 1;
static uint16_t		 ncomms = 1;

/*
 * BEGAN_BY or ENDED_BY for its 8-bit field: its place in the words.
 * *last is the place this field met last: one memo for both missed at
 * each, a vertex's two words differing.
 */
static uint8_t
word8(struct graph *g, struct vertex *v, int field, uint32_t id,
    uint8_t *last)
{
	uint8_t i;

	if (graph_tables.words[*last] == id)
		return *last;
	for (i = 0; i < nwords; i++)
		if (graph_tables.words[i] == id)
			return *last = i;
	if (nwords == VX_FAR_WORD) {
		set_far(g, v, field, id);
		return VX_FAR_WORD;
	}
	graph_tables.words = xrealloc(graph_tables.words, (nwords + 1) *
	    sizeof(*graph_tables.words));
	graph_tables.words[nwords] = id;
	return *last = nwords++;
}

/*
 * word8() of field col of the reader's, where a word is most often the
 * one this place met last (a vertex's BEGAN_BY, ENDED_BY): a short field
 * is one word to compare with the last's, whose place, once it has one
 * in the words met, is the answer.
 */
struct word_again {
	uint64_t	 w;
	uint32_t	 id;	/* interned; 0: none yet */
	uint8_t		 at;	/* word8()'s for it */
	uint8_t		 last;	/* word8()'s own memo */
};

static inline uint8_t
word8_again(struct graph *g, struct vertex *v, int field,
    const struct record *rec, size_t col, struct word_again *m)
{
	uint64_t w;

	if (!field_word(rec, col, &w))
		return word8(g, v, field, str_id(record_str(rec, col)),
		    &m->last);
	if (m->id == 0 || m->w != w) {
		m->w = w;
		m->id = str_id(rec->f[col]);
		return m->at = word8(g, v, field, m->id, &m->last);
	}
	if (m->at == VX_FAR_WORD)	/* the vertex's own, in the table */
		return word8(g, v, field, m->id, &m->last);
	return m->at;
}

/*
 * COMM for its 16-bit field: its place in the names met, which a map
 * from the interned name finds.
 */
static uint16_t
comm16(struct graph *g, struct vertex *v, uint32_t id)
{
	static uint16_t *at, last;	/* at: by name, place + 1 */
	static uint32_t nat;
	uint32_t n;

	if (graph_tables.comms[last] == id)
		return last;
	if (id < nat && at[id] != 0)
		return last = at[id] - 1;
	if (ncomms == VX_FAR_COMM) {
		set_far(g, v, VF_COMM, id);
		return VX_FAR_COMM;
	}
	if (id >= nat) {
		n = nat;
		nat = id + 1 > 2 * nat ? id + 1 : 2 * nat;
		at = xrealloc(at, nat * sizeof(*at));
		memset(at + n, 0, (nat - n) * sizeof(*at));
	}
	graph_tables.comms = xrealloc(graph_tables.comms, (ncomms + 1) *
	    sizeof(*graph_tables.comms));
	graph_tables.comms[ncomms] = id;
	at[id] = ncomms + 1;
	return last = ncomms++;
}

/*
 * A system call's first argument, as vertex.arg holds it: itself if under
 * VX_BIG_ARG, else its place among the big ones (a futex's address), which
 * an open-addressed table of them finds.
 */
static uint64_t		*big_args;
static uint32_t		 nbig_args, *big_slot;
static size_t		 big_slots;

static size_t
big_hash(uint64_t a, size_t mask)
{
	return (a * GOLDEN64 >> 32) & mask;
}

static uint32_t
arg_code(uint64_t a)
{
	size_t i, mask;
	uint32_t k;

	if (a < VX_BIG_ARG)
		return (uint32_t)a;
	if (2 * ((size_t)nbig_args + 1) > big_slots) {
		free(big_slot);
		big_slots = big_slots ? 2 * big_slots : 1024;
		big_slot = xcalloc(big_slots, sizeof(*big_slot));
		mask = big_slots - 1;
		for (k = 0; k < nbig_args; k++) {
			for (i = big_hash(big_args[k], mask); big_slot[i] != 0;
			    i = (i + 1) & mask)
				;
			big_slot[i] = k + 1;
		}
		big_args = xrealloc(big_args, big_slots / 2 *
		    sizeof(*big_args));
	}
	mask = big_slots - 1;
	for (i = big_hash(a, mask); (k = big_slot[i]) != 0; i = (i + 1) & mask)
		if (big_args[k - 1] == a)
			return VX_BIG_ARG | (k - 1);
	if (nbig_args == VX_BIG_ARG)
		diex(EX_SOFTWARE, "more than %u distinct system call "
		    "arguments", VX_BIG_ARG);
	big_args[nbig_args] = a;
	big_slot[i] = ++nbig_args;
	return VX_BIG_ARG | (nbig_args - 1);
}

/*
 * A system call's first argument, arg_code()'s: most often a descriptor
 * the thread used at its call before, whose bytes, one word, a memo
 * keeps the code of, rather than reading the number and coding it again.
 */
#define ARG_BITS	6

static uint32_t
call_arg(const struct event *ev)
{
	static struct {
		uint64_t	 w;	/* 0: empty */
		uint32_t	 code;
	} memo[1 << ARG_BITS];
	uint64_t w;
	size_t i;

	if (!field_word(ev->rec, EC_ARG + SYSCALL_ARG(0), &w) || w == 0)
		return arg_code(event_u64_loose(ev, SYSCALL_ARG(0)));
	i = (w * GOLDEN64) >> (64 - ARG_BITS);
	if (memo[i].w != w) {
		memo[i].code = arg_code(event_u64_loose(ev, SYSCALL_ARG(0)));
		memo[i].w = w;
	}
	return memo[i].code;
}

/*
 * The next room of a big array, [from, end), faulted in by one call
 * before it is written, not by a trap at each 4 KB page: a hundred
 * thousand traps in a big graph's vertices and links, 2% of its load.
 * Only advice: a kernel without it (before 5.14) faults as before.  Not
 * huge pages: on a VM the host backs a fresh 2 MB one slowly, and the
 * load took more system time with them, not less.
 */
#define PREFAULT_V	1024	/* vertices: 64 KB */
#define PREFAULT_L	4096	/* links: 72 KB */

static void
prefault(void *from, void *end)
{
#ifdef MADV_POPULATE_WRITE
	static uintptr_t pg;
	uintptr_t a, b;

	if (pg == 0)
		pg = sysconf(_SC_PAGESIZE);
	/* The pages at either end hold the array's bytes: they are mapped. */
	a = (uintptr_t)from & ~(pg - 1);
	b = ((uintptr_t)end + pg - 1) & ~(pg - 1);
	(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)from;
	(void)end;
#endif
}

/* A vertex met for the first time: its place made. */
static struct vertex * __attribute__((noinline))
vertex_new(struct graph *g, uint64_t id)
{
	struct vertex *v;

	if (g->nv == 0)
		g->nv = 1;	/* place 0: not a vertex */
	if (g->nv == UINT32_MAX)
		diex(EX_SOFTWARE, "more than %u vertices", UINT32_MAX - 1);
	if (g->nv >= g->readyv) {
		if (g->nv >= g->capv) {
			g->capv = g->capv ? 2 * g->capv : 4096;
			g->v = xrealloc(g->v, g->capv * sizeof(*g->v));
			/* vertex_far() finds places in it */
			graph_tables.v = g->v;
		}
		g->readyv = g->nv + PREFAULT_V < g->capv ?
		    g->nv + PREFAULT_V : g->capv;
		prefault(&g->v[g->nv], &g->v[g->readyv]);
	}
	v = &g->v[g->nv];
	memset(v, 0, sizeof(*v));
	v->id32 = id < VX_FAR ? (uint32_t)id : VX_FAR;
	if (id >= VX_FAR)
		set_far(g, v, VF_ID, id);
	v->in = -1;
	place_add(g, id, g->nv++);
	return v;
}

/*
 * id's vertex, made if it is new.  The lookup in line: a graph's every
 * link and system call looks up vertices met before, and the call cost
 * a third of the lookup.
 */
static inline struct vertex *
vertex_make(struct graph *g, uint64_t id)
{
	uint32_t place;

	if (id == 0)
		return NULL;
	if ((place = place_of(g, id)) != 0)
		return &g->v[place];
	return vertex_new(g, id);
}

struct vertex *
vertex_get(struct graph *g, uint64_t id)
{
	uint32_t place = place_of(g, id);

	return place != 0 && g->v[place].seen ? &g->v[place] : NULL;
}

/*
 * A call's classes (CALL_*) by its interned id: the id is found anyway,
 * by the memo of its bytes, and a name's classes once looked up are an
 * array's entry, not another lookup of its name.
 */
static unsigned
call_class_of(uint32_t id)
{
	static uint16_t *at;	/* the classes, CLASS_KNOWN once looked up */
	static uint32_t nat;
	uint32_t n;
#define CLASS_KNOWN	0x8000
	_Static_assert(CALL_SIGWAIT < CLASS_KNOWN, "a call's classes fit");

	if (id >= nat) {
		n = nat;
		nat = id + 1 > 2 * nat ? id + 1 : 2 * nat;
		at = xrealloc(at, nat * sizeof(*at));
		memset(at + n, 0, (nat - n) * sizeof(*at));
	}
	if (!(at[id] & CLASS_KNOWN))
		at[id] = syscall_class(str_of(id)) | CLASS_KNOWN;
	return at[id] & ~CLASS_KNOWN;
#undef CLASS_KNOWN
}

/*
 * A sys_enter's call, interned, and its classes: by a memo of the name's
 * bytes (two words, as str_id_padded()), which answers both at once for
 * the few calls a trace makes again and again.
 */
#define CALL_MEMO	64	/* a power of 2 */

static uint32_t
call_of(const struct record *rec, unsigned *classes)
{
	static struct {
		uint64_t	 head, tail;
		uint32_t	 len, id;
		unsigned	 classes;
	} memo[CALL_MEMO];
	const char *name = record_str(rec, EC_ARG + SYSCALL_NAME);
	size_t len = rec->nf > EC_ARG + SYSCALL_NAME ? record_len(rec,
	    EC_ARG + SYSCALL_NAME) : 0;
	uint64_t head, tail;
	uint32_t id;
	size_t i;

	if (!rec->padded || len == 0 || len > 16) {
		id = str_id_field(rec, name, len);
		*classes = call_class_of(id);
		return id;
	}
	i = padded_words(name, len, &head, &tail) >> 58 & (CALL_MEMO - 1);
	if (memo[i].len != len || memo[i].head != head ||
	    memo[i].tail != tail) {
		memo[i].head = head;
		memo[i].tail = tail;
		memo[i].len = len;
		memo[i].id = str_id_field(rec, name, len);
		memo[i].classes = call_class_of(memo[i].id);
	}
	*classes = memo[i].classes;
	return memo[i].id;
}

/*
 * The call (its interned id) to the vertex's calls; the id.  The
 * first calls, and always the last: a vertex that starts a program makes a
 * dozen (execve, mmap, geteuid ...) before the one it blocks in, which is
 * what a report names.
 */
static uint32_t
add_syscall(struct vertex *v, uint32_t id)
{
	int i;

	for (i = 0; i < VSYSCALLS && v->sys[i] != 0; i++)
		if (v->sys[i] == id)
			return id;
	if (id >= 65536)
		return id;
	if (i == VSYSCALLS) {
		v->more_sys = 1;
		i = VSYSCALLS - 1;
	}
	v->sys[i] = id;
	return id;
}

/*
 * Each thread's latest vertex, for the stack records that follow, in an
 * open-addressed table by thread (at most half full): most events look
 * their thread up, and a chained hash's entries, one allocation each,
 * are a miss each.
 */
struct current {
	uint64_t	 key;		/* tid + 1; 0: an empty slot */
	uint64_t	 vertex;
	uint64_t	 preempted;	/* switched out runnable, at */
	uint64_t	 pvertex;	/* in that vertex */
	uint64_t	 woken;		/* woken and not yet run, at */
	uint32_t	 wcpu;		/* to run on that CPU */
	uint32_t	 place;		/* vertex's place in v; 0: not looked up */
	struct {			/* its run of EAGAIN failures */
		uint64_t	 vertex;
		struct retried	 r;
		int		 trying;	/* in the run's call again */
	}		 again;
};

static struct current	*currents, *last_current;	/* current_of()'s */
static size_t		 ncurrents, current_slots;

static size_t
current_slot(uint64_t key, size_t mask)
{
	return (key * GOLDEN64 >> 32) & mask;
}

/* An entry for key, not in the table, made at slot i or a new table's. */
static struct current * __attribute__((noinline))
current_add(uint64_t key, size_t i)
{
	struct current *old = currents, *c;
	size_t k, mask;

	if (2 * (ncurrents + 1) > current_slots) {
		k = current_slots;
		current_slots = current_slots ? 2 * current_slots : 256;
		currents = xcalloc(current_slots, sizeof(*currents));
		mask = current_slots - 1;
		for (; k-- > 0; ) {
			if (old[k].key == 0)
				continue;
			for (i = current_slot(old[k].key, mask);
			    currents[i].key != 0; i = (i + 1) & mask)
				;
			currents[i] = old[k];
		}
		free(old);
		for (i = current_slot(key, mask); currents[i].key != 0;
		    i = (i + 1) & mask)
			;
	}
	c = &currents[i];
	c->key = key;
	ncurrents++;
	return c;
}

/*
 * tid's entry; NULL if it has none and make is 0.  In line: a switch and
 * a wake-up look up the thread they name, and the call cost a third of
 * the lookup.
 */
static inline struct current *
current_find(uint32_t tid, int make)
{
	uint64_t key = (uint64_t)tid + 1;
	size_t i = 0, mask = current_slots - 1;

	if (current_slots != 0)
		for (i = current_slot(key, mask); currents[i].key != 0;
		    i = (i + 1) & mask)
			if (currents[i].key == key)
				return &currents[i];
	return make ? current_add(key, i) : NULL;
}

/*
 * Most events follow one of the same thread: the last one found is
 * tried first (an entry stays where it is until the table grows).
 */
static inline struct current *
current_of(uint32_t tid)
{
	if (last_current != NULL && last_current->key == (uint64_t)tid + 1)
		return last_current;
	return last_current = current_find(tid, 1);
}

/* The thread's current vertex; its place is looked up when asked. */
static struct current *
note_current(uint32_t tid, uint64_t vertex)
{
	struct current *c = current_of(tid);

	if (c->vertex != vertex) {
		c->vertex = vertex;
		c->place = 0;
	}
	return c;
}

/*
 * The vertex of a thread's system call: most often the one of its call
 * before, whose place its current entry keeps (places stay), instead of
 * looking the id up.  c: the thread's entry, or NULL.
 */
static struct vertex *
call_vertex(struct graph *g, struct current *c, uint64_t id)
{
	struct vertex *v;

	if (c == NULL || c->vertex != id)
		return vertex_make(g, id);
	if (c->place == 0 && (v = vertex_make(g, id)) != NULL)
		c->place = v - g->v;
	return c->place != 0 ? &g->v[c->place] : NULL;
}

/*
 * The thread a switch gives its CPU to, or a wake-up wakes: a machine's
 * threads are few and each is switched to and woken again and again, so
 * the memo of its TTID's bytes keeps its number.
 */
#define TTID_BITS	6

static struct ttid_memo {
	uint64_t	 w, tid;	/* w 0: empty */
}		 ttid_memo[1 << TTID_BITS];

/* Out of line, as a thread's first switch or wake-up is. */
static uint64_t __attribute__((noinline))
ttid_read(const struct event *ev, int col, struct ttid_memo *m, uint64_t w)
{
	uint64_t tid = event_u64(ev, col);

	if (m != NULL) {
		m->tid = tid;
		m->w = w;
	}
	return tid;
}

static inline uint64_t
event_ttid(const struct event *ev, int col)
{
	struct ttid_memo *m;
	uint64_t w;

	if (!field_word(ev->rec, EC_ARG + col, &w) || w == 0)
		return ttid_read(ev, col, NULL, 0);
	m = &ttid_memo[(w * GOLDEN64) >> (64 - TTID_BITS)];
	if (m->w != w)
		return ttid_read(ev, col, m, w);
	return m->tid;
}

static uint64_t
switch_next(const struct event *ev)
{
	return event_ttid(ev, ECOL(E_SWITCH, TTID));
}

/*
 * The time a vertex spent preempted (switched out runnable, until a
 * switch gives its thread a CPU again): a thread that ran on a busy
 * machine was runnable, not blocked, and is busy as LongRunning says
 * ("busy on a CPU, or runnable more than blocked").
 */
static void
preempt_end(struct graph *g, struct current *c, uint64_t t)
{
	struct vertex *v;

	if (t > c->preempted && (v = vertex_make(g, c->pvertex)) != NULL)
		v->runnable = time32(g, v, VF_RUNNABLE,
		    vertex_runnable(v) + t - c->preempted);
	c->preempted = 0;
}

/*
 * Who ran on a CPU while threads preempted there waited for it: each
 * switch ends the run of the thread it switches out, which the waiters
 * of that CPU, switched out runnable before it began, waited through.  A
 * waiter leaves at its next switch in or out, on any CPU (a filtered
 * stream may leave out the switch to it), and a wait of STEAL_MIN or more
 * is kept then, a steal record for each thread that ran in it: the few
 * that ran most, the rest as one (taker STEAL_MANY).  A preemption's
 * usual microseconds keep nothing.
 */
#define STEAL_WAITERS	8
#define STEAL_TAKERS	4
#define STEAL_MIN	10000000ULL	/* 10 ms */

struct stealwait {
	uint32_t	 tid;
	uint64_t	 since;
	uint32_t	 taker[STEAL_TAKERS];	/* 0: the CPU idle */
	uint64_t	 ns[STEAL_TAKERS], other;
	int		 n;
};

/*
 * The runs a CPU gave, the last STEAL_RUNS of them: a thread woken there
 * waited through those that came before it ran (steal_woken()).  Kept
 * at each switch, as cheap as the switch's own bookkeeping, where a
 * waiter's list at each wake-up would cost every switch after it.
 */
#define STEAL_RUNS	256

struct run {
	uint64_t	 since;
	uint32_t	 tid;
};

static struct stealcpu {
	uint64_t	 since;			/* the running thread's */
	uint32_t	 running;
	int		 nwait;
	struct stealwait wait[STEAL_WAITERS];
	struct run	 runs[STEAL_RUNS];	/* those before, a ring */
	uint32_t	 nruns;
}		*stealcpus;
static uint32_t	 nstealcpus;
static int	 nwaiting;			/* on all of them */

static void
steal_put(struct graph *g, const struct stealwait *w, uint32_t taker,
    uint64_t ns)
{
	if (g->nsteals == g->capsteals) {
		g->capsteals = g->capsteals ? 2 * g->capsteals : 256;
		g->steals = xrealloc(g->steals, g->capsteals *
		    sizeof(*g->steals));
	}
	g->steals[g->nsteals++] = (struct steal){ w->since, ns, w->tid,
	    taker };
}

/* The wait is over at t: kept if it was long. */
static void
steal_end(struct graph *g, const struct stealwait *w, uint64_t t)
{
	int i;

	if (t < w->since + STEAL_MIN)
		return;
	for (i = 0; i < w->n; i++)
		steal_put(g, w, w->taker[i], w->ns[i]);
	if (w->other > 0)
		steal_put(g, w, STEAL_MANY, w->other);
}

/* Taker ran from from to t while w waited. */
static void
steal_add(struct stealwait *w, uint32_t taker, uint64_t from, uint64_t t)
{
	int i;

	if (w->since > from)
		from = w->since;
	if (t <= from)
		return;
	for (i = 0; i < w->n && w->taker[i] != taker; i++)
		;
	if (i == w->n && w->n < STEAL_TAKERS)
		w->taker[w->n++] = taker;
	if (i < w->n)
		w->ns[i] += t - from;
	else
		w->other += t - from;
}

static void
note_steal(struct graph *g, const struct event *ev, uint64_t next,
    int preempted)
{
	struct stealcpu *sc;
	uint32_t c, n = next <= UINT32_MAX ? (uint32_t)next : 0;
	int i, j;

	if (ev->cpu >= nstealcpus) {
		stealcpus = xrealloc(stealcpus, (ev->cpu + 1) *
		    sizeof(*stealcpus));
		memset(stealcpus + nstealcpus, 0, (ev->cpu + 1 - nstealcpus) *
		    sizeof(*stealcpus));
		nstealcpus = ev->cpu + 1;
	}
	sc = &stealcpus[ev->cpu];
	sc->runs[sc->nruns++ % STEAL_RUNS] = (struct run){ sc->since,
	    sc->running };
	if (nwaiting == 0 && !preempted) {
		sc->running = n;
		sc->since = ev->time;
		return;
	}
	for (i = 0; i < sc->nwait; i++)
		steal_add(&sc->wait[i], ev->tid, sc->since, ev->time);
	/*
	 * The thread it gives the CPU no longer waits, wherever it did;
	 * nor does the one it switches out, which ran (a filtered stream
	 * leaves out switches to a thread).
	 */
	for (c = 0; nwaiting > 0 && c < nstealcpus; c++)
		for (i = 0; i < stealcpus[c].nwait; i++)
			if ((n != 0 && stealcpus[c].wait[i].tid == n) ||
			    stealcpus[c].wait[i].tid == ev->tid) {
				steal_end(g, &stealcpus[c].wait[i], ev->time);
				stealcpus[c].wait[i--] =
				    stealcpus[c].wait[--stealcpus[c].nwait];
				nwaiting--;
			}
	if (preempted && ev->tid != 0) {
		/* Full: the one waiting longest, likely gone, makes room. */
		for (i = j = 0; sc->nwait == STEAL_WAITERS && i < sc->nwait;
		    i++)
			if (sc->wait[i].since < sc->wait[j].since)
				j = i;
		if (sc->nwait == STEAL_WAITERS) {
			sc->wait[j] = sc->wait[--sc->nwait];
			nwaiting--;
		}
		memset(&sc->wait[sc->nwait], 0, sizeof(sc->wait[0]));
		sc->wait[sc->nwait].tid = ev->tid;
		sc->wait[sc->nwait++].since = ev->time;
		nwaiting++;
	}
	sc->running = n;
	sc->since = ev->time;
}

/* The waits still going on at the end of the stream, as they stand. */
static void
steals_end(struct graph *g, uint64_t t)
{
	uint32_t c;
	int i;

	for (c = 0; c < nstealcpus; c++)
		for (i = 0; i < stealcpus[c].nwait; i++) {
			steal_add(&stealcpus[c].wait[i], stealcpus[c].running,
			    stealcpus[c].since, t);
			steal_end(g, &stealcpus[c].wait[i], t);
		}
}

/*
 * Woken at c->woken to run on c->wcpu, it ran at t: who ran there in
 * between took its CPU, a steal as a preempted thread's (note_steal()),
 * the runs beyond the ring's as many.
 */
static void
steal_woken(struct graph *g, uint32_t tid, const struct current *c,
    uint64_t t)
{
	struct stealcpu *sc = &stealcpus[c->wcpu];
	struct stealwait w = { .tid = tid, .since = c->woken };
	uint64_t end = sc->since;
	uint32_t k;

	/* No switch seen there yet: who ran, the trace does not say. */
	if (sc->since == 0)
		return;
	steal_add(&w, sc->running, sc->since, t);
	for (k = 0; k < STEAL_RUNS && k < sc->nruns && end > c->woken; k++) {
		const struct run *r = &sc->runs[(sc->nruns - 1 - k) %
		    STEAL_RUNS];

		if (r->since == 0)
			break;
		steal_add(&w, r->tid, r->since, end);
		end = r->since;
	}
	if (end > c->woken)
		steal_add(&w, STEAL_MANY, c->woken, end);
	steal_end(g, &w, t);
}

/*
 * A wake-up: until a switch gives the thread a CPU, it waits for one, as
 * a preempted thread does (runnable, and who ran instead a steal).  On a
 * starved thread's wake-up that wait is the hang; counted as blocked,
 * the thread would look like a waiter (classify()).
 */
static void
note_waking(const struct event *ev)
{
	uint64_t tid = event_ttid(ev, WAKE_COL(TTID)), cpu;
	struct current *c;

	if (tid == 0 || tid > UINT32_MAX ||
	    (c = current_find(tid, 0)) == NULL || c->preempted != 0)
		return;
	c->preempted = ev->time;
	c->pvertex = c->vertex;
	/*
	 * None (a macOS trace does not say where a thread is made
	 * runnable): who ran there instead is unknown.
	 */
	cpu = *event_str(ev, WAKE_COL(TARGET_CPU)) != '\0' ?
	    event_u64_loose(ev, WAKE_COL(TARGET_CPU)) : UINT64_MAX;
	c->wcpu = cpu < nstealcpus ? (uint32_t)cpu : 0;
	c->woken = cpu < nstealcpus ? ev->time : 0;
}

static void
note_switch(struct graph *g, const struct event *ev)
{
	struct current *c;
	uint64_t next = switch_next(ev);
	int preempted;

	if (next != 0 && next <= UINT32_MAX) {
		c = current_find(next, 0);
		if (c != NULL && c->woken != 0) {
			if (ev->time >= c->woken + STEAL_MIN)
				steal_woken(g, (uint32_t)next, c, ev->time);
			c->woken = 0;
		}
		if (c != NULL && c->preempted != 0)
			preempt_end(g, c, ev->time);
	}
	preempted = event_str(ev, ECOL(E_SWITCH, STATE))[0] == 'R';
	if (preempted && ev->vertex != NO_VERTEX &&
	    ev->vertex != UNSEGMENTED) {
		c = current_of(ev->tid);
		c->preempted = ev->time;
		c->pvertex = ev->vertex;
	}
	note_steal(g, ev, next, preempted);
}

/* A stack record names where the thread's current vertex waits. */
static void
read_stack(struct graph *g, const struct record *rec)
{
	struct current *c;
	struct vertex *v;
	uint64_t tid;
	char fn[128];

	if (!record_u64_opt(rec, COL_TID, &tid) ||
	    !stack_function(rec, fn, sizeof(fn)))
		return;
	c = current_find(tid, 0);
	if (c != NULL && (v = vertex_make(g, c->vertex)) != NULL) {
		set_far(g, v, VF_WHERE, str_id(fn));
		v->has_where = 1;
	}
}

/*
 * Links name vertices whose records come later (a vertex's record follows
 * its last event): until then, where the first link to name one was read,
 * for the message if its record never comes.  A link has no room for it:
 * there are three for each vertex.  The vertex has, in its begin and end,
 * which its record sets: a table of them cost an allocation, a hash and
 * a free a vertex, on the load's hot path.
 */
#define REF_LINE(v)	((v)->begin)
#define REF_FILE(v)	((v)->end)

static uint16_t nrules;
static size_t capfar, caplabels;

/* Rule's place in graph_tables.rules: a link has room for LK_RULE + 1. */
static uint16_t
rule_find(const struct record *rec, const struct link_rec *r)
{
	static uint16_t last;
	uint32_t id = str_id_field(rec, r->rule, record_len(rec,
	    RCOL(link, RULE)));
	uint16_t i;

	if (nrules > 0 && graph_tables.rules[last] == id)
		return last;
	for (i = 0; i < nrules; i++)
		if (graph_tables.rules[i] == id)
			return last = i;
	if (nrules > LK_RULE)
		diex(EX_SOFTWARE, "more than %u link rules", LK_RULE + 1);
	graph_tables.rules = xrealloc(graph_tables.rules, (nrules + 1) *
	    sizeof(*graph_tables.rules));
	graph_tables.props = xrealloc(graph_tables.props, (nrules + 1) *
	    sizeof(*graph_tables.props));
	graph_tables.rules[nrules] = id;
	graph_tables.props[nrules] = r->props;
	return last = nrules++;
}

/*
 * The same, by the memo of a rule's bytes: a rule is a short word
 * ("wakeup", "order"), one word of the reader's padded field and its
 * length, which finds its place without interning it at each link.
 */
#define RULE_MEMO	16	/* a power of 2 */

static uint16_t
rule_of(const struct record *rec, const struct link_rec *r)
{
	static struct {
		uint64_t	 key;	/* 0: empty */
		uint16_t	 rule;
	} memo[RULE_MEMO];
	size_t len = record_len(rec, RCOL(link, RULE));
	uint64_t key;
	size_t i;

	if (!rec->padded || len == 0 || len > 7)
		return rule_find(rec, r);
	memcpy(&key, r->rule, 8);
	key = (le64toh(key) & (~0ULL >> (64 - 8 * len))) | (uint64_t)len << 56;
	i = (key * GOLDEN64) >> 60 & (RULE_MEMO - 1);
	if (memo[i].key != key) {
		memo[i].key = key;
		memo[i].rule = rule_find(rec, r);
	}
	return memo[i].rule;
}

static void
far_add(struct link_far **t, size_t *n, size_t *cap, uint32_t k,
    uint32_t v32, uint64_t v64)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*t = xrealloc(*t, *cap * sizeof(**t));
	}
	(*t)[(*n)++] = (struct link_far){ k, v32, v64 };
}

static void
note_ref(struct graph *g, const struct record *rec, uint64_t id,
    uint32_t place)
{
	struct vertex *v = &g->v[place];

	if (id == 0 || v->seen || REF_LINE(v) != 0)
		return;
	REF_LINE(v) = rec->line;
	REF_FILE(v) = (uintptr_t)rec->file;
}

/*
 * A thread's group in by_thread: the threads are few beside their
 * vertices, so their table stays in the cache.
 */
struct tgroup {
	uint32_t	 tid, n;	/* n: vertices, then where the next goes */
	uint32_t	 placed;	/* vertices placed so far */
	uint64_t	 begin;		/* the last one's */
};

static int
tgroup_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct tgroup *)a)->tid;
	uint32_t y = ((const struct tgroup *)b)->tid;

	return x < y ? -1 : x > y;
}

/* Where tid's group is in t (2^bits slots), or the empty slot for it. */
static uint32_t *
tgroup_slot(uint32_t *slot, const struct tgroup *t, int bits, uint32_t tid)
{
	size_t i, mask = ((size_t)1 << bits) - 1;

	for (i = (tid * 0x9e3779b1u) >> (32 - bits); slot[i] != 0 &&
	    t[slot[i] - 1].tid != tid; i = (i + 1) & mask)
		;
	return &slot[i];
}

/*
 * The threads' groups, counted as their vertex records come, while each
 * vertex is in the cache: sort_by_thread() then makes one pass over the
 * vertices, not a second one to count them (a pass is a miss a vertex).
 */
static struct tgroup	*groups;
static uint32_t		*group_slots, ngroups, capgroups;
static uint32_t		 group_last[2];	/* the groups counted last, + 1,
					   the latest first */
static int		 group_bits = 10;

/* group_count()'s for a group but the last two: by the table. */
static void __attribute__((noinline))
group_find(uint32_t tid, int n)
{
	uint32_t *s, k;

	group_last[1] = group_last[0];
	if (group_slots == NULL)
		group_slots = xcalloc((size_t)1 << group_bits,
		    sizeof(*group_slots));
	if (*(s = tgroup_slot(group_slots, groups, group_bits, tid)) != 0) {
		groups[(group_last[0] = *s) - 1].n += n;
		return;
	}
	if (ngroups == capgroups) {
		capgroups = capgroups ? 2 * capgroups : 256;
		groups = xrealloc(groups, capgroups * sizeof(*groups));
	}
	groups[ngroups].tid = tid;
	groups[ngroups++].n = n;
	*s = group_last[0] = ngroups;
	if (2 * (size_t)ngroups > (size_t)1 << group_bits) {	/* half full */
		free(group_slots);
		group_slots = xcalloc((size_t)1 << ++group_bits,
		    sizeof(*group_slots));
		for (k = 0; k < ngroups; k++)
			*tgroup_slot(group_slots, groups, group_bits,
			    groups[k].tid) = k + 1;
	}
}

/*
 * One vertex more (n 1) or less (-1) in tid's group.  The last two groups
 * first: two threads that talk end their vertices in turn.
 */
static inline void
group_count(uint32_t tid, int n)
{
	uint32_t k;

	if ((k = group_last[0]) != 0 && groups[k - 1].tid == tid) {
		groups[k - 1].n += n;
		return;
	}
	if ((k = group_last[1]) != 0 && groups[k - 1].tid == tid) {
		group_last[1] = group_last[0];
		group_last[0] = k;
		groups[k - 1].n += n;
		return;
	}
	group_find(tid, n);
}

/*
 * In the loop, as take_record() is (STAGE_CALLBACK): a graph has one
 * vertex and three links for every few events, and a call saved and
 * restored a dozen registers at each.
 */
STAGE_CALLBACK void
read_vertex(struct graph *g, const struct record *rec,
    const struct vertex_rec *r)
{
	static struct word_again began, ended;
	struct vertex *v = vertex_make(g, r->id);

	if (v == NULL)
		diex(EX_DATAERR, "%s:%lu: vertex id out of range", rec->file,
		    rec->line);
	if (!v->seen)
		group_count(r->tid, 1);
	else if (v->tid != r->tid) {	/* a record again, of another thread */
		group_count(v->tid, -1);
		group_count(r->tid, 1);
	}
	v->pid = r->pid;
	v->tid = r->tid;
	v->begin = r->begin;
	v->end = r->end;
	v->oncpu = time32(g, v, VF_ONCPU, r->oncpu);
	v->began = word8_again(g, v, VF_BEGAN, rec, RCOL(vertex, BEGAN_BY),
	    &began);
	v->ended = word8_again(g, v, VF_ENDED, rec, RCOL(vertex, ENDED_BY),
	    &ended);
	v->wait = r->wait[0];
	/* Threads' names alternate: the memo of many, not of the last. */
	v->comm_at = comm16(g, v, str_id_field(rec, r->comm, field_len(rec,
	    RCOL(vertex, COMM))));
	g->nseen += !v->seen;
	v->seen = 1;
}

STAGE_CALLBACK void
read_link(struct graph *g, const struct record *rec, const struct link_rec *r)
{
	struct tables *gl = &graph_tables;
	struct vertex *v;
	struct link *l;
	uint32_t k = g->nl, label;
	int64_t dt;

	if (g->nl == g->readyl) {
		if (g->nl == g->capl) {
			if (g->capl > INT32_MAX / 2)
				diex(EX_SOFTWARE, "more than %d links",
				    INT32_MAX / 2);
			g->capl = g->capl ? 2 * g->capl : 4096;
			g->l = xrealloc(g->l, g->capl * sizeof(*g->l));
			gl->base = xrealloc(gl->base, g->capl / LINK_BLOCK *
			    sizeof(*gl->base));
		}
		g->readyl = g->nl < g->capl - PREFAULT_L ?
		    g->nl + PREFAULT_L : g->capl;
		prefault(&g->l[k], &g->l[g->readyl]);
	}
	l = &g->l[k];
	/* A vertex whose record is still to come has its place already. */
	v = vertex_make(g, r->to);
	l->to_at = v != NULL ? v - g->v : 0;
	/*
	 * Chained now, newest first, while the vertex is near in the cache:
	 * a pass over the links afterwards is a miss a link in a big graph.
	 */
	if (v != NULL) {
		l->next_in = v->in;
		v->in = k;
	} else
		g->to_none = 1;
	v = vertex_make(g, r->from);
	l->from_at = v != NULL ? v - g->v : 0;
	l->rule = rule_of(rec, r) | (r->weak ? LK_WEAK : 0);
	if (k % LINK_BLOCK == 0)
		gl->base[k / LINK_BLOCK] = r->from_time;
	dt = (int64_t)(r->from_time - gl->base[k / LINK_BLOCK]);
	if (dt > INT32_MIN && dt <= INT32_MAX)
		l->dt = (int32_t)dt;
	else {
		l->dt = LINK_FAR;
		far_add(&gl->far, &gl->nfar, &capfar, k, 0, r->from_time);
	}
	/* A label that is still an address: the stream may name it. */
	if (*r->label != '\0' && (label = str_id(ksym_name(r->label))) != 0) {
		l->rule |= LK_LABEL;
		far_add(&gl->labels, &gl->nlabels, &caplabels, k, label, 0);
	}
	note_ref(g, rec, r->to, l->to_at);
	note_ref(g, rec, r->from, l->from_at);
	g->nl++;
}

static void
read_baseline(struct graph *g, const struct baseline_rec *r)
{
	struct baseline *b;

	g->bases = xrealloc(g->bases, (g->nbases + 1) * sizeof(*g->bases));
	b = &g->bases[g->nbases++];
	b->spin = r->spin_vertex;
	b->vertex = r->vertex;
	b->rank = r->rank;
	b->waker = r->waker;
}

static struct graph *sort_graph;

static int
by_thread_cmp(const void *a, const void *b)
{
	const struct vertex *x = &sort_graph->v[*(const uint32_t *)a];
	const struct vertex *y = &sort_graph->v[*(const uint32_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return 0;
}

/*
 * The places sorted by (tid, begin), without a sort where it can: a
 * thread's vertex records come in the order its vertices began (a
 * record follows its vertex's last event), so the places go to their
 * thread's group in the order of v, a pass in memory order instead of
 * a sort's scattered reads.  If any thread's vertices are out of order,
 * or two begin at once, the sort decides as it always has.
 */
static void
sort_by_thread(struct graph *g)
{
	struct tgroup *t = groups, *tg;
	uint32_t *slot, *p = g->by_thread, ng = ngroups, i, k;
	uint64_t n, at;
	int bits = group_bits, sorted = 1;

	g->nby = g->nseen;
	if (ng > 0)
		qsort(t, ng, sizeof(*t), tgroup_cmp);
	for (k = 0, at = 0; k < ng; k++) {
		at += t[k].n;
		t[k].n = at - t[k].n;	/* where its first goes */
	}
	slot = group_slots != NULL ? group_slots :
	    xcalloc((size_t)1 << bits, sizeof(*slot));
	memset(slot, 0, ((size_t)1 << bits) * sizeof(*slot));
	for (k = 0; k < ng; k++) {
		*tgroup_slot(slot, t, bits, t[k].tid) = k + 1;
		t[k].placed = 0;
	}
	/* In order if each begins after the one placed before it. */
	for (i = 1; i < g->nv; i++) {
		if (!g->v[i].seen)
			continue;
		tg = &t[*tgroup_slot(slot, t, bits, g->v[i].tid) - 1];
		if (tg->placed++ > 0 && g->v[i].begin <= tg->begin)
			sorted = 0;
		tg->begin = g->v[i].begin;
		p[tg->n++] = i;
	}
	free(slot);
	free(t);
	groups = NULL;
	group_slots = NULL;
	ngroups = capgroups = group_last[0] = group_last[1] = 0;
	if (sorted)
		return;
	for (i = 1, n = 0; i < g->nv; i++)
		if (g->v[i].seen)
			p[n++] = i;
	sort_graph = g;
	qsort(p, n, sizeof(*p), by_thread_cmp);
}

/* Everything passes on; what the graph needs is kept on the way. */
/*
 * Of a wait-for snapshot, what the diagnosis uses beyond its links: who
 * waits for input from a terminal, that is for a person, and what each
 * blocked thread waits on.  A newer snapshot replaces an older one.
 */
static void
read_wait(struct graph *g, const struct wait_rec *w)
{
	struct snapwait *s;

	if (w->time != g->snap_time) {
		g->snap_time = w->time;
		g->nreaders = g->nsnapw = g->nsnapfd = g->nsnapobj = 0;
	}
	/*
	 * Memory a poller shares is no object the kernel waits on: kept
	 * apart, for the poll's diagnosis alone (shared.c).
	 */
	if (w->mode == WM_FLAG) {
		g->flagw = xrealloc(g->flagw, (g->nflagw + 1) *
		    sizeof(*g->flagw));
		g->flagw[g->nflagw++] = (struct flagwait){ w->time, w->pid,
		    w->tid, str_id(w->object), 0 };
		return;
	}
	if (*w->object != '\0') {
		g->snapobj = xrealloc(g->snapobj, (g->nsnapobj + 1) *
		    sizeof(*g->snapobj));
		g->snapobj[g->nsnapobj++] = (struct snapobj){ w->pid, w->tid,
		    str_id(w->object), w->mode, 0, 0 };
	}
	if (w->fd >= 0 && *w->object != '\0') {
		g->snapfd = xrealloc(g->snapfd, (g->nsnapfd + 1) *
		    sizeof(*g->snapfd));
		g->snapfd[g->nsnapfd++] = (struct snapfd){ w->tid, w->fd,
		    str_id(w->object) };
	}
	/* A thread's objects come together: one entry for them all. */
	s = g->nsnapw > 0 ? &g->snapw[g->nsnapw - 1] : NULL;
	if (s == NULL || s->tid != w->tid) {
		g->snapw = xrealloc(g->snapw, (g->nsnapw + 1) *
		    sizeof(*g->snapw));
		s = &g->snapw[g->nsnapw++];
		memset(s, 0, sizeof(*s));
		s->tid = w->tid;
		s->pid = w->pid;
		s->deadline = NO_TIME;
		s->selffd = NO_FD;
		s->state = *w->state;
		s->call = str_id(w->call);
		s->wchan = str_id(w->wchan);
	}
	if (w->deadline < s->deadline)
		s->deadline = w->deadline;
	s->clients |= w->mode == WM_ACCEPT;
	s->sockets |= strncmp(w->object, "socket:", 7) == 0;
	s->timed |= w->timeout != NO_TIME || w->deadline != NO_TIME;
	/* A poll set's objects; an epoll instance stands for its members. */
	if (*w->object != '\0' && (*w->via != '\0' ||
	    strncmp(w->object, "epoll:", 6) != 0) && s->objects < UINT8_MAX) {
		s->objects++;
		s->timers += strcmp(w->type, WT_TIMERFD) == 0;
	}
	if (w->mode == WM_STOP)
		s->stop = *w->state == 't' ? 't' : 'T';
	else if (w->mode == WM_THAW) {
		s->stop = 'F';
		s->freezer = str_id(w->object);
	}
	s->since = w->since;
	if (strcmp(w->type, WT_TTY) != 0 || w->mode != WM_IN)
		return;
	g->readers = xrealloc(g->readers, (g->nreaders + 1) *
	    sizeof(*g->readers));
	g->readers[g->nreaders++] = w->tid;
}

/*
 * A flock(2) lock a thread waits for that its own process holds by
 * another descriptor (the lock is an open file's, which a child inherits
 * with the descriptor): whole-file, so whatever either asks it conflicts
 * with itself, and unless another of its threads lets go, it waits for
 * itself.  Not the descriptor it waits on (an upgrade waits for the
 * others' locks), nor an OFD lock (another range may be someone else's).
 */
static void
self_held(struct graph *g, const struct holder_rec *h)
{
	uint32_t object = str_id(h->object), tid;
	int i, j;

	if (h->fd == NO_FD || strncmp(h->detail, "FLOCK ", 6) != 0)
		return;
	for (i = 0; i < g->nsnapobj; i++) {
		if (g->snapobj[i].pid != h->pid ||
		    g->snapobj[i].object != object)
			continue;
		tid = g->snapobj[i].tid;
		for (j = 0; j < g->nsnapfd; j++)
			if (g->snapfd[j].tid == tid &&
			    g->snapfd[j].object == object &&
			    g->snapfd[j].fd == h->fd)
				break;
		if (j < g->nsnapfd)
			continue;
		for (j = 0; j < g->nsnapw; j++)
			if (g->snapw[j].tid == tid)
				g->snapw[j].selffd = h->fd;
	}
}

/* Who holds the other end of each object a thread of the snapshot waits on. */
static void
other_end(struct graph *g, const struct holder_rec *h)
{
	uint32_t object = str_id(h->object);
	struct snapobj *o;
	int i;

	for (i = 0; i < g->nsnapobj; i++) {
		o = &g->snapobj[i];
		if (o->object != object || !wrel_ends(h->rel, o->mode))
			continue;
		if (h->pid == o->pid)
			o->own = 1;
		else
			o->other = 1;
	}
}

/*
 * A runtime that names a waiting thread as the holder of its own wait
 * (argus-waitfor(1), PROVIDERS): it waits for nobody but its own timer,
 * a sleep the kernel sees as a timed futex or latch wait (the JVM's
 * Thread.sleep, MariaDB's SLEEP()).  Kept until the stream's snapshot is
 * known: its holders need not follow its waits.
 */
static void
read_holder(struct graph *g, const struct holder_rec *h)
{
	char label[RUNTIME_NAMELEN + 64];

	if (h->rel == WR_LOCK_HOLDER && h->time == g->snap_time)
		self_held(g, h);
	if (h->time == g->snap_time)
		other_end(g, h);
	if (h->rel == WR_MAPPER) {
		g->mappers = xrealloc(g->mappers, (g->nmappers + 1) *
		    sizeof(*g->mappers));
		g->mappers[g->nmappers++] = (struct flagwait){ h->time,
		    h->pid, 0, str_id(h->object), str_id(h->detail) };
		return;
	}
	if (h->rel != WR_RUNTIME || h->tid == 0)
		return;
	snprintf(label, sizeof(label), "%.*s" RUNTIME_SEP "%s",
	    RUNTIME_NAMELEN - 1, h->detail, h->through);
	g->selfh = xrealloc(g->selfh, (g->nselfh + 1) * sizeof(*g->selfh));
	g->selfh[g->nselfh++] = (struct selfhold){ h->time, h->tid,
	    str_id(h->object), str_id(label) };
}

/* Those of the last snapshot whose object is the thread's own wait's. */
static void
mark_sleepers(struct graph *g)
{
	const struct selfhold *h;
	int i, j;

	for (i = 0; i < g->nselfh; i++) {
		h = &g->selfh[i];
		if (h->time != g->snap_time)
			continue;
		for (j = 0; j < g->nsnapobj; j++)
			if (g->snapobj[j].tid == h->tid &&
			    g->snapobj[j].object == h->object)
				break;
		if (j == g->nsnapobj)
			continue;
		for (j = 0; j < g->nsnapw; j++)
			if (g->snapw[j].tid == h->tid)
				g->snapw[j].sleeps = h->label;
	}
}

/*
 * Whether each object thread tid waits on has another end, and its own
 * process alone holds them (a self-pipe, an eventfd or a socket pair
 * between its threads).
 */
static int
ends_held_within(const struct graph *g, uint32_t tid)
{
	int i, n = 0;

	for (i = 0; i < g->nsnapobj; i++)
		if (g->snapobj[i].tid == tid) {
			if (!g->snapobj[i].own || g->snapobj[i].other)
				return 0;
			n++;
		}
	return n > 0;
}

int
snapshot_wait(const struct graph *g, const struct vertex *v,
    struct snapwait *out)
{
	int i, found = 0;

	if (g->snap_time == NO_TIME || v->begin > g->snap_time ||
	    (v->end < g->snap_time && v->end < g->last_time))
		return 0;
	memset(out, 0, sizeof(*out));
	out->selffd = NO_FD;
	for (i = 0; i < g->nsnapw; i++)
		if (g->snapw[i].tid == v->tid) {
			out->tid = v->tid;
			out->clients |= g->snapw[i].clients;
			out->sockets |= g->snapw[i].sockets;
			out->timed |= g->snapw[i].timed;
			out->objects = g->snapw[i].objects;
			out->timers = g->snapw[i].timers;
			out->stop = g->snapw[i].stop;
			out->freezer = g->snapw[i].freezer;
			out->since = g->snapw[i].since;
			out->deadline = g->snapw[i].deadline;
			if (g->snapw[i].sleeps != 0)
				out->sleeps = g->snapw[i].sleeps;
			out->selffd = g->snapw[i].selffd;
			out->ownends = ends_held_within(g, v->tid);
			out->pid = g->snapw[i].pid;
			out->state = g->snapw[i].state;
			out->call = g->snapw[i].call;
			out->wchan = g->snapw[i].wchan;
			found = 1;
		}
	return found;
}

int
reads_terminal(const struct graph *g, uint32_t tid)
{
	int i;

	for (i = 0; i < g->nreaders; i++)
		if (g->readers[i] == tid)
			return 1;
	return 0;
}

/*
 * Links are checked in the order read, so the first bad one is the first
 * to name its missing vertex: where that vertex's first link was read.
 */
static void __attribute__((noreturn))
never_introduced(struct graph *g, const struct link *l, uint32_t place,
    uint64_t id)
{
	const struct vertex *v = &g->v[place];

	if (place == 0 || REF_LINE(v) == 0)
		diex(EX_SOFTWARE, "link %llu -> %llu: vertex %llu unseen but "
		    "not noted", (unsigned long long)link_from(l),
		    (unsigned long long)link_to(l), (unsigned long long)id);
	diex(EX_DATAERR, "%s:%lu: link %llu -> %llu refers to a vertex the "
	    "stream never introduced", (const char *)(uintptr_t)REF_FILE(v),
	    (unsigned long)REF_LINE(v), (unsigned long long)link_from(l),
	    (unsigned long long)link_to(l));
}

/*
 * What the stage driver reads into.  The callbacks are inlined into its
 * loop, as the loop's body was before: called, they cost the load of
 * the graph some 20 instructions a record.
 */
struct gread {
	struct graph	*g;
	int		 flags;
};

struct sentfd {
	uint64_t	 vertex;
	int32_t		 fd;
	UT_hash_handle	 hh;
};

struct retry {
	uint64_t	 vertex;
	struct retried	 r;
	UT_hash_handle	 hh;
};

static void
sent_before_wait(struct graph *g, uint64_t id, uint64_t fd)
{
	struct sentfd *s;

	if (fd > INT32_MAX)
		return;
	HASH_GET(hh, g->sent, vertex, &id, s);
	s->fd = (int32_t)fd;
}

int
vertex_sent_fd(struct graph *g, uint64_t id)
{
	struct sentfd *s;

	HASH_FIND(hh, g->sent, &id, sizeof(id), s);
	return s != NULL ? s->fd : -1;
}

const struct retried *
vertex_retry(struct graph *g, uint64_t id)
{
	struct retry *r;

	HASH_FIND(hh, g->retries, &id, sizeof(id), r);
	return r != NULL ? &r->r : NULL;
}

/* A run of failures ends: kept if it is the vertex's longest. */
static void
retry_end(struct graph *g, struct current *c)
{
	struct retry *r;

	if (c->again.r.n >= RETRY_MIN) {
		HASH_GET(hh, g->retries, vertex, &c->again.vertex, r);
		if (c->again.r.n > r->r.n)
			r->r = c->again.r;
	}
	c->again.r.n = 0;
	c->again.trying = 0;
}

/*
 * A send or a receive of vertex v failed with EAGAIN (argus-capture
 * records their exits then only): one more of its thread's run on that
 * call and descriptor, or the first of a new one.  Other calls between
 * the tries leave the run as it is (a yield, a look at the clock); one
 * of the run's own that did not fail ends it (note_enter()): a server
 * that reads a connection until EAGAIN at each request, and reads it
 * again at the next, makes no run.
 */
static void
note_again(struct graph *g, struct current *c, const struct vertex *v,
    uint64_t t)
{
	struct retried *run = &c->again.r;

	if (run->n == 0 || c->again.vertex != c->vertex ||
	    run->sys != v->last_sys || run->arg != v->arg) {
		retry_end(g, c);
		c->again.vertex = c->vertex;
		run->sys = v->last_sys;
		run->arg = v->arg;
		run->first = t;
	}
	run->n++;
	run->last = t;
	c->again.trying = 0;
}

/*
 * Its thread enters a call of vertex v: where it tries the run's call
 * again, the run goes on only if this try fails too.
 */
static inline void
note_enter(struct graph *g, struct current *c, const struct vertex *v)
{
	if (c->again.trying)
		retry_end(g, c);
	c->again.trying = c->again.r.n != 0 &&
	    v->last_sys == c->again.r.sys && v->arg == c->again.r.arg;
}

/* The input ends: every thread's run too. */
static void
retries_end(struct graph *g)
{
	size_t i;

	for (i = 0; i < current_slots; i++)
		if (currents[i].key != 0)
			retry_end(g, &currents[i]);
}

/*
 * The kernel stops a thread of a background process group that writes to
 * its terminal (with tostop set) or reads from it: the signal is sent in
 * the thread's own context, to itself, and no link says so.
 */
static void
note_ttystop(struct graph *g, const struct event *ev)
{
	int64_t sig = event_i64(ev, ECOL(E_SIGNAL_GENERATE, SIG));

	if ((sig != SIGTTOU && sig != SIGTTIN) || ev->ctx != '-' ||
	    event_u64(ev, ECOL(E_SIGNAL_GENERATE, TTID)) != ev->tid)
		return;
	g->ttystops = xrealloc(g->ttystops, (g->nttystops + 1) *
	    sizeof(*g->ttystops));
	g->ttystops[g->nttystops++] = (struct ttystop){ ev->time, ev->tid,
	    (int)sig };
}

static void
note_exec(struct graph *g, const struct event *ev)
{
	if ((g->nexecs & (g->nexecs - 1)) == 0)
		g->execs = xrealloc(g->execs, (g->nexecs ? 2 * g->nexecs : 1) *
		    sizeof(*g->execs));
	g->execs[g->nexecs++] = (struct execd){ ev->time, ev->pid };
}

/* Whether process pid exec'd in [from, to]. */
int
execd_between(const struct graph *g, uint32_t pid, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; i < g->nexecs; i++)
		if (g->execs[i].pid == pid && g->execs[i].time >= from &&
		    g->execs[i].time <= to)
			return 1;
	return 0;
}

STAGE_CALLBACK int
take_event(void *arg, const struct record *rec, struct event *ev)
{
	struct gread *gr = arg;
	struct current *c = NULL;
	struct vertex *v;
	unsigned classes;
	uint32_t id;

	/* One branch an event by its type, not a test of each type met. */
	switch (ev->type) {
	case E_FORK:
	case E_COMM:
		names_event(gr->g->names, ev);
		break;
	case E_EXEC:
		names_event(gr->g->names, ev);
		note_exec(gr->g, ev);
		break;
	case E_SIGNAL_GENERATE:
		if (ev->vertex != NO_VERTEX && ev->vertex != UNSEGMENTED &&
		    event_exits_itself(ev))
			vertex_make(gr->g, ev->vertex)->exits_itself = 1;
		else
			note_ttystop(gr->g, ev);
		break;
	case E_SWITCH:
		if (gr->flags & GR_RUNS)
			chrome_runs_switch(&gr->g->runs, ev->time, ev->cpu,
			    ev->tid, event_u64(ev, ECOL(E_SWITCH, TTID)));
		if (ev->ctx == '-')
			note_switch(gr->g, ev);
		break;
	case E_WAKING:
		note_waking(ev);
		break;
	default:
		break;
	}
	if (ev->ctx == '-' && ev->vertex != NO_VERTEX &&
	    ev->vertex != UNSEGMENTED) {
		c = note_current(ev->tid, ev->vertex);
		/*
		 * Its own event after a preemption: it runs again, though
		 * no switch gave it a CPU (some kernels leave switches out: a
		 * VM's, those out of an idle CPU); not runnable until the end
		 * of its next wait.
		 */
		if (c->preempted != 0 && c->preempted < ev->time) {
			preempt_end(gr->g, c, ev->time);
			c->woken = 0;
		}
	}
	if (ev->type == E_SYS_ENTER && ev->vertex != NO_VERTEX &&
	    ev->vertex != UNSEGMENTED &&
	    (v = call_vertex(gr->g, c, ev->vertex)) != NULL) {
		id = call_of(rec, &classes);
		if ((classes & CALL_FUTEX) && v->last_sys != 0 &&
		    (call_class_of(v->last_sys) & CALL_SEND))
			sent_before_wait(gr->g, vertex_id(v), v->arg);
		v->last_sys = add_syscall(v, id);
		v->arg = call_arg(ev);
		if (c != NULL && c->again.r.n != 0)
			note_enter(gr->g, c, v);
		v->lock = syscall_is_lock_wait(ev);
		/* The call's class is known: no name compared at each call. */
		v->private_wait = (classes & CALL_FUTEX) &&
		    syscall_is_private_wait(ev);
		/* Whom it reaped, if it went on (a poll of its children). */
		if (classes & CALL_REAP)
			set_far(gr->g, v, VF_REAP,
			    (uint64_t)(uint32_t)event_u64_loose(ev,
			    SYSCALL_ARG(0)) + 1);
	} else if (ev->type == E_SYS_EXIT && c != NULL && c->place != 0 &&
	    event_i64(ev, ECOL(E_SYS_EXIT, RET)) == SYS_AGAIN &&
	    (v = &gr->g->v[c->place])->last_sys != 0 &&
	    (call_class_of(v->last_sys) & (CALL_SEND | CALL_RECV)))
		/* Its call's vertex, whose place the call's entry looked up. */
		note_again(gr->g, c, v, ev->time);
	return 1;
}

/*
 * A runtime provider that failed the snapshot (argus-waitfor(1)): the
 * report says so, as a hop its runtime did not name may be missing.
 * Each once.
 */
static void
read_provider_error(struct graph *g, const struct record *rec)
{
	const char *v = record_str(rec, META_VALUE);
	int i;

	for (i = 0; i < g->nprovider_errors; i++)
		if (strcmp(g->provider_errors[i], v) == 0)
			return;
	if (g->nprovider_errors < (int)ARRAY_LEN(g->provider_errors))
		g->provider_errors[g->nprovider_errors++] = xstrdup(v);
}

/*
 * Events the kernel lost (a ring that overflowed): a switch or a wake-up
 * of the chain may be among them, which the report says.  CPUs past 63
 * are counted, not named.
 */
static void
read_lost(struct graph *g, const struct record *rec)
{
	uint64_t cpu = record_u64(rec, LOST_CPU);
	uint64_t n = record_u64(rec, LOST_COUNT);

	if (n == 0 || rec->time == NO_TIME)
		return;
	g->lost += n;
	if (cpu < 64)
		g->lost_cpus |= 1ULL << cpu;
	/* A flood's capture says a loss every page it marked: many. */
	if ((g->nlost_marks & (g->nlost_marks - 1)) == 0)
		g->lost_marks = xrealloc(g->lost_marks, (g->nlost_marks ?
		    2 * g->nlost_marks : 1) * sizeof(*g->lost_marks));
	g->lost_marks[g->nlost_marks++] = (struct lost_mark){ rec->time, n };
}

uint64_t
lost_between(const struct graph *g, uint64_t from, uint64_t to)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < g->nlost_marks; i++)
		if (g->lost_marks[i].time >= from && g->lost_marks[i].time <= to)
			n += g->lost_marks[i].n;
	return n;
}

/*
 * The columns the graph keeps: a vertex's all but EVENTS; a link's but
 * its threads, both read from a memo of their bytes at each link.
 */
#define VERTEX_COLS	(RBIT_THREAD | RBIT(vertex, ID) | \
	RBIT(vertex, BEGIN) | RBIT(vertex, END) | RBIT(vertex, ONCPU) | \
	RBIT(vertex, BEGAN_BY) | RBIT(vertex, ENDED_BY) | \
	RBIT(vertex, WAIT) | RBIT(vertex, COMM))
#define LINK_COLS	(RBIT(link, FROM) | RBIT(link, TO) | \
	RBIT(link, STRENGTH) | RBIT(link, RULE) | RBIT(link, FROM_TIME) | \
	RBIT(link, LABEL))

STAGE_CALLBACK int
take_record(void *arg, const struct record *rec)
{
	struct graph *g = ((struct gread *)arg)->g;
	struct baseline_rec br;
	struct vertex_rec vr;
	struct link_rec lr;
	struct spin_rec sr;
	struct wait_rec wr;
	struct holder_rec hr;

	if (vertex_parse_only(rec, &vr, VERTEX_COLS))
		read_vertex(g, rec, &vr);
	else if (link_parse_only(rec, &lr, LINK_COLS))
		read_link(g, rec, &lr);
	else if (spin_parse(rec, &sr)) {
		g->spins = xrealloc(g->spins, (g->nspins + 1) *
		    sizeof(*g->spins));
		g->spins[g->nspins++] = sr;
	} else if (baseline_parse(rec, &br))
		read_baseline(g, &br);
	else if (record_is(rec, KIND_STACK))
		read_stack(g, rec);
	else if (wait_parse(rec, &wr))
		read_wait(g, &wr);
	else if (holder_parse(rec, &hr))
		read_holder(g, &hr);
	else if (summary_of(rec, "argus-spin"))
		g->spun = 1;
	else if (meta_is(rec, META_PROVIDER_ERROR))
		read_provider_error(g, rec);
	else if (record_is(rec, KIND_LOST))
		read_lost(g, rec);
	else if (record_is(rec, KIND_TASK)) {
		cgroup_learn(rec);
		names_learn(g->names, rec);
	}
	return 1;
}

/* A cut graph is no graph to judge: the driver stops on a signal. */
const struct stage_ops graph_stage = {
	.doing = "loading the graph:",
	.done = "loaded the graph:",
	.flags = STAGE_PASS,
	.event = take_event,
	.record = take_record,
};

void
graph_read(struct graph *g, struct stage *st, int flags)
{
	struct gread gr = { g, flags };
	int32_t k;

	memset(g, 0, sizeof(*g));
	g->snap_time = NO_TIME;
	graph_tables.words = xcalloc(nwords, sizeof(*graph_tables.words));
	graph_tables.comms = xcalloc(ncomms, sizeof(*graph_tables.comms));
	g->names = names_new();
	st->arg = &gr;
	stage_run(st, &graph_stage);
	retries_end(g);
	if (st->first != NO_TIME) {
		g->first_time = st->first;
		g->last_time = st->last;
	}
	mark_sleepers(g);
	steals_end(g, g->last_time);
	chrome_runs_end(&g->runs, g->last_time);
	chrome_runs_sort(&g->runs);
	graph_tables.v = g->v;
	graph_tables.l = g->l;
	/*
	 * A link to a vertex never seen is bad: where every vertex met was
	 * seen, and every link had a TO, there is none to look for.
	 */
	for (k = 0; (g->to_none || g->nseen + 1 < g->nv) && k < g->nl; k++) {
		if (g->l[k].to_at == 0 || !g->v[g->l[k].to_at].seen)
			never_introduced(g, &g->l[k], g->l[k].to_at,
			    link_to(&g->l[k]));
		if (g->l[k].from_at != 0 && !g->v[g->l[k].from_at].seen)
			never_introduced(g, &g->l[k], g->l[k].from_at,
			    link_from(&g->l[k]));
	}
	g->by_thread = xmalloc(g->nv * sizeof(*g->by_thread));
	prefault(g->by_thread, g->by_thread + g->nv);
	sort_by_thread(g);
}

/* The first of tid's vertices in by_thread, by binary search. */
static uint64_t
first_of(struct graph *g, uint32_t tid, uint64_t n)
{
	uint64_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (g->v[g->by_thread[mid]].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* tid's vertex that spans t, or the first after it; 0 if none. */
uint64_t
vertex_at(struct graph *g, uint32_t tid, uint64_t t)
{
	uint64_t n = g->nby, i;
	struct vertex *v;

	for (i = first_of(g, tid, n); i < n; i++) {
		v = &g->v[g->by_thread[i]];
		if (v->tid != tid)
			break;
		if (v->end >= t)
			return vertex_id(v);
	}
	return 0;
}

/*
 * A thread's name at t as the stream says it (names.h: its task records,
 * the exec that renamed it); for a stream of vertices alone, that of its
 * last vertex begun by t, or of its first.  NULL: never named.
 */
const char *
thread_name_at(struct graph *g, uint32_t tid, uint64_t t)
{
	const char *s = names_at(g->names, tid, t);
	const struct vertex *v, *last = NULL;
	uint64_t n = g->nby, i;

	if (s != NULL)
		return s;
	for (i = first_of(g, tid, n); i < n; i++) {
		v = &g->v[g->by_thread[i]];
		if (v->tid != tid || (last != NULL && v->begin > t))
			break;
		last = v;
	}
	return last != NULL && vertex_comm(last) != 0 ?
	    str_of(vertex_comm(last)) : NULL;
}

/* The thread's vertex after id (step 1) or before it (-1); 0 if none. */
static uint64_t
vertex_beside(struct graph *g, uint64_t id, int step)
{
	struct vertex *v = vertex_get(g, id);
	uint64_t n = g->nby, i;

	if (v == NULL)
		return 0;
	for (i = first_of(g, v->tid, n); i < n && g->v[g->by_thread[i]].tid ==
	    v->tid; i++)
		if (vertex_id(&g->v[g->by_thread[i]]) == id) {
			if ((step < 0 && i == 0) || (step > 0 && i + 1 >= n))
				return 0;
			i += step;
			return g->v[g->by_thread[i]].tid == v->tid ?
			    vertex_id(&g->v[g->by_thread[i]]) : 0;
		}
	return 0;
}

uint64_t
vertex_next(struct graph *g, uint64_t id)
{
	return vertex_beside(g, id, 1);
}

uint64_t
vertex_prev(struct graph *g, uint64_t id)
{
	return vertex_beside(g, id, -1);
}

/*
 * The link that woke the thread after vertex id: the first into the next
 * vertex, in stream order, whose rule ends a wait.  Links are chained
 * newest first.
 */
int
link_into_next(struct graph *g, uint64_t id, struct link **out)
{
	uint64_t next = vertex_next(g, id);
	struct vertex *v;
	int32_t k;

	if (next == 0 || (v = vertex_get(g, next)) == NULL)
		return 0;
	*out = NULL;
	for (k = v->in; k >= 0; k = g->l[k].next_in)
		if (link_props(&g->l[k]) & LR_WAKES)
			*out = &g->l[k];
	return *out != NULL;
}

const char *
vertex_where(uint32_t pid, char *buf, size_t size)
{
	char s[CGROUP_MAX + 16];
	const char *w = cgroup_where(cgroup_of(pid), s, sizeof(s));

	snprintf(buf, size, "%s%s", w != NULL ? " in " : "", show(w));
	return buf;
}

static void
describe(struct graph *g, uint64_t id, int where, char *buf, size_t size)
{
	struct vertex *v = vertex_get(g, id);
	char in[256] = "";
	size_t n;
	int i;

	if (v == NULL) {
		snprintf(buf, size, "vertex %llu (unknown)", (unsigned long long)id);
		return;
	}
	if (where)
		vertex_where(v->pid, in, sizeof(in));
	n = snprintf(buf, size, "%s %u/%u%s%s%s vertex %llu at +%.3fs, %.1f ms "
	    "(%.0f%% on CPU)", show(str_of(vertex_comm(v))), v->pid, v->tid,
	    host_name(v->pid) != NULL ? " on host " : "",
	    show(host_name(v->pid)), in,
	    (unsigned long long)id, (double)(int64_t)(v->begin - g->first_time) / 1e9,
	    (v->end - v->begin) / 1e6, v->end > v->begin ?
	    100.0 * vertex_oncpu(v) / (v->end - v->begin) : 0.0);
	for (i = 0; i < VSYSCALLS && v->sys[i] != 0 && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%s", i == 0 ? ", calls " :
		    i == VSYSCALLS - 1 && v->more_sys ? ",...," : ",",
		    show(str_of(v->sys[i])));
	if (v->wait == WAIT_UNSEEN[0] && n < size)
		n += snprintf(buf + n, size - n, ", ends waiting (its "
		    "switch-out lost by the kernel)");
	else if (v->wait && n < size)
		n += snprintf(buf + n, size - n, ", ends waiting (%c)", v->wait);
	if (vertex_function(v) != 0 && n < size) {
		const char *w = str_of(vertex_function(v));
		const char *lt = strchr(w, '<');

		/* "recv_msg<ask_browser_for_help": the function, its caller */
		if (lt != NULL)
			snprintf(buf + n, size - n, ", in %s from %s",
			    show_mem(w, lt - w), show(lt + 1));
		else
			snprintf(buf + n, size - n, ", in %s", show(w));
	}
}

void
describe_vertex(struct graph *g, uint64_t id, char *buf, size_t size)
{
	describe(g, id, 0, buf, size);
}

void
describe_vertex_in(struct graph *g, uint64_t id, char *buf, size_t size)
{
	describe(g, id, 1, buf, size);
}
