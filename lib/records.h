/*
 * The graph's and the wait-for snapshot's records, from lib/records.def:
 * for each kind NAME, its columns by name (RCOL), struct NAME_rec, and
 *
 *	int  NAME_parse(const struct record *, struct NAME_rec *);
 *	void NAME_write(struct writer *, const struct NAME_rec *);
 *
 * A parser returns 0 for a record of another kind and 1 after filling its
 * structure; bad input (a missing or malformed number, an unknown word)
 * exits naming the file and line.  Strings point into the record and last
 * until the reader's next record, as with events; NAME_keep() copies them
 * for a structure kept longer, NAME_drop() frees the copies.
 *
 *	int  NAME_parse_only(const struct record *, struct NAME_rec *,
 *	    uint64_t cols);
 *
 * is NAME_parse() for a reader of millions that needs a few columns: it
 * reads those of cols (RBIT) and those its CHECK needs, and leaves the
 * other members unset, their columns unchecked.
 */
#ifndef ARGUS_RECORDS_H
#define ARGUS_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

struct sclass;

/* A ROOT record's KIND: where on the chain of a diagnosis its thread is. */
enum root_kind { RK_VICTIM, RK_CULPRIT, RK_ROOT, RK_CYCLE };

/*
 * How sure a hop of a diagnosis's chain is, weakest to strongest: a
 * report says its chain as sure as its least sure hop, in the phrase;
 * a root record's EVIDENCE is the word.  A circular wait needs better
 * than a guess on every hop.
 */
enum evidence {
	EV_GUESS,	/* a baseline's path, a suspect: timing */
	EV_WAKEUP,	/* a wake-up or request of this wait: a strong link */
	EV_RUNTIME,	/* a runtime names the holder (a provider) */
	EV_CONNECTION,	/* a connection both hosts' recordings hold */
	EV_KERNEL,	/* the kernel names the holder */
	EV_UNSAID = -1	/* the victim: no hop */
};

#define NO_FD		(-1)

/*
 * The codecs: the C type of a column's member.  How each is read and
 * written is lib/schema.c's.
 *	NUM	a number			uint64_t
 *	ID	a vertex id, NUM's		uint64_t
 *	NUM_TIME	NUM's, most often the record's TIME or near it
 *	OPT0	a number, 0 if empty		uint64_t (OPT0_32: uint32_t)
 *	OPT	a number, NO_TIME if empty	uint64_t, written empty
 *	TIME_OR_NOW	a time, the record's if empty
 *	FROM_PID	a process, empty if unknown (FROM_TID's thread's)
 *	FROM_TID	OPT0's, after a FROM_PID
 *	STR	text				const char *
 *	OBJECT	text, never empty		const char *
 *	BUF	text, kept (cut to 31 bytes)	char[32]
 *	WEAK	strong or weak			int, 1 if weak
 *	SCORE	a score, "%.3f"			double
 *	CLASS	a spin class by name		const struct sclass *
 *	ROOT_KIND, EVIDENCE	their words	enum root_kind, enum evidence
 *	WMODE, WREL	a wait's mode, a holder's relation: WM_*, WR_*
 *	FD	a file descriptor or empty	int, NO_FD if empty
 *	ANY_FD	FD's, a malformed one NO_FD
 *	ARGS	the rest, hexadecimal		const uint64_t *m, int nm
 */
/* WEAK's two words, for a writer of links that lays them out itself. */
#define LINK_STRONG		"strong"
#define LINK_WEAK		"weak"
#define RT_NUM(m)		uint64_t m;
#define RT_ID(m)		uint64_t m;
#define RT_NUM_TIME(m)		uint64_t m;
#define RT_OPT0(m)		uint64_t m;
#define RT_OPT0_32(m)		uint32_t m;
#define RT_OPT(m)		uint64_t m;
#define RT_TIME_OR_NOW(m)	uint64_t m;
#define RT_FROM_PID(m)		uint32_t m;
#define RT_FROM_TID(m)		uint64_t m;
#define RT_STR(m)		const char *m;
#define RT_OBJECT(m)		const char *m;
#define RT_BUF(m)		char m[32];
#define RT_WEAK(m)		int m;
#define RT_SCORE(m)		double m;
#define RT_CLASS(m)		const struct sclass *m;
#define RT_ROOT_KIND(m)		enum root_kind m;
#define RT_EVIDENCE(m)		enum evidence m;
#define RT_WMODE(m)		int m;
#define RT_WREL(m)		int m;
#define RT_FD(m)		int m;
#define RT_ANY_FD(m)		int m;
#define RT_ARGS(m)		const uint64_t *m; int n##m;

/* TIME,PID,TID's members, by HEAD. */
#define RH_GRAPH	uint64_t time; uint32_t pid, tid;
#define RH_VERTEX	uint32_t pid, tid;
#define RH_WAIT		uint64_t time; uint32_t pid, tid;
#define RH_HOLDER	uint64_t time; uint32_t pid, tid; /* tid 0: all */
#define RH_SOCK		uint64_t time; uint32_t pid;

/* RCOL(link, RULE): a column by its name; RCOLS(link): how many there are. */
#define FIELD(col, codec, m, json)	char col;
#define RECORD(name, kind, head, check, extra, fields) \
	struct name##_cols { fields };
#include "records.def"
#undef RECORD
#undef FIELD
#define RCOL(name, col)	\
	((int)(COL_FIRST_OWN + offsetof(struct name##_cols, col)))
#define RCOLS(name)	((int)(COL_FIRST_OWN + sizeof(struct name##_cols)))
/*
 * NAME_parse_only()'s columns: RBIT(link, TO) | RBIT(link, RULE) ...;
 * RBIT_THREAD, the thread of TIME,PID,TID (TIME is always read).
 */
#define RBIT(name, col)	((uint64_t)1 << RCOL(name, col))
#define RBIT_THREAD	((uint64_t)1 << COL_PID | (uint64_t)1 << COL_TID)

#define FIELD(col, codec, m, json)	RT_##codec(m)
#define RECORD(name, kind, head, check, extra, fields) \
	struct name##_rec { RH_##head fields extra };
#include "records.def"
#undef RECORD
#undef FIELD

#define RECORD(name, kind, head, check, extra, fields) \
	int	 name##_parse(const struct record *, struct name##_rec *); \
	int	 name##_parse_only(const struct record *, \
		    struct name##_rec *, uint64_t cols); \
	void	 name##_write(struct writer *, const struct name##_rec *); \
	void	 name##_keep(struct name##_rec *); \
	void	 name##_drop(struct name##_rec *); \
	extern const char *const name##_json[];
#include "records.def"
#undef RECORD

/* RJSON(root, WHY): the name of a column's field in argus's JSON. */
#define RJSON(name, col)	(name##_json[RCOL(name, col) - COL_FIRST_OWN])

/*
 * The columns after KIND,TIME,PID,TID of each kind argus-stream(5)
 * documents, as it names them, for a header row (argus-cat --header); a
 * last name ending in "..." repeats (ARG...: ARG1, ARG2, ...).  NULL for
 * a kind it does not document.
 */
const char *kind_columns(const char *kind);

#endif
