/*
 * libargus-patch.so: the paper's binary patcher for x86-64 Linux.
 * Preloaded (LD_PRELOAD), its constructor reads the probe sets named in
 * ARGUS_PATCH (the probe sets of the uprobe path, patchers/NAME.probes),
 * finds each probe in the objects this process has loaded, and replaces
 * the victim instruction there (or a run of whole instructions, where the
 * set says "run") with a jmp to a trampoline of its own: save what a C
 * call clobbers, record the point, run the relocated victim, jump back.
 * A return probe swaps the return address on the stack for a second
 * trampoline's, keeping the real one on a per-thread shadow stack.
 *
 * A hit costs a few tens of nanoseconds and no system call: the event goes
 * into this thread's ring in a file shared with argus-capture
 * (ARGUS_PATCH_DIR/PID-N.ubuf, see ubuf.h), stamped by the vDSO's
 * CLOCK_MONOTONIC, the clock the capture's tracefs instance uses.
 *
 * Whatever cannot be relocated with certainty (a branch, an instruction
 * shorter than 5 bytes, an operand out of range) is refused with a
 * message naming the probe and the reason; the program runs unpatched
 * there.  Nothing here ever stops the program.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "elfsym.h"
#include "probeset.h"
#include "ubuf.h"

#define HIDDEN		__attribute__((visibility("hidden")))
#define TLS		__attribute__((tls_model("initial-exec"))) __thread
#define MAXSITES	256
#define MAXPER		4	/* events of one kind at one site */
#define SHADOW		128	/* nested return probes per thread */
#define TRAMP_MAX	320	/* bytes of one trampoline */
#define SCAN_MAX	4096	/* bytes scanned for branches into a run */

struct probe {
	char		*lib, *sym, *event, *where;
	uint64_t	 off;
	int		 deref, ret, nargs, run;
	uint8_t		 name;		/* index of event in the ubuf names */
	int		 pending;	/* its object not loaded when looked */
	uintptr_t	 base;		/* its object's load address */
};

struct hook {
	uint8_t		 name;
	uint8_t		 nargs;
};

/* One patched address: its entry events and its return events. */
struct site {
	uintptr_t	 addr;
	int		 run;		/* the set allows a run of instructions */
	int		 entry;		/* a function's first instruction */
	int		 multi;		/* other threads ran when it was placed */
	int		 nent, nret;
	struct hook	 ent[MAXPER], ret[MAXPER];
	const struct probe *first;	/* for messages */
	char		 where[64];
	uintptr_t	 base;		/* its object's load address */
	int		 dead;		/* its object was dlclose()d */
};

struct shadow {
	uintptr_t	 sp;		/* where the return address was */
	uintptr_t	 ret;
	const struct site *site;
};

static struct probe	*probes;
static int		 nprobes;
static struct site	 sites[MAXSITES];
static int		 nsites;
static struct ubuf_hdr	*hdr;
static uint32_t		 ring_n = UBUF_CELLS;	/* cells a slot, 2^n */
static int		 dirfd_ = -1;
static char		 hdr_name[64];
static int		 hdr_fd = -1;	/* for the pages of slots claimed */
static int		 no_room;	/* a slot found none: said once */
static int		 verbose;
static char		*names[UBUF_PROBES];
static int		 nnames;
static pthread_key_t	 slot_key, shadow_key;
static int		 (*vdso_gettime)(clockid_t, struct timespec *);
static int		 tsc_clock;	/* stamps are the TSC's: ubuf.h */
static int		 ready;		/* sets read: dlopen() rescans */
static int		 recording;	/* keys, fork */
static int		 nplaced;
/* argus patch --pid: where the other threads stopped, not to be inside a
 * victim when they go on. */
static const uint64_t	*stopped_at;
static int		 nstopped;

static TLS struct ubuf_slot *my_slot;
static TLS int		 my_tid;
/* Mapped at a thread's first return probe: in static TLS, its 3 KiB
 * would not fit beside an auditor (LD_AUDIT sets the static TLS block up
 * before the preloaded objects are loaded, with little room to spare). */
static TLS struct shadow *my_shadow;
static TLS int		 my_depth;

static void
say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "argus-patch[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	strncat(buf, "\n", sizeof(buf) - strlen(buf) - 1);
	if (write(STDERR_FILENO, buf, strlen(buf)) < 0)
		return;
}

/* lib/elfsym.c's allocators, here without exit(): NULL reads as failure. */
HIDDEN void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		abort();
	return p;
}

HIDDEN void *
xrealloc(void *p, size_t size)
{
	if ((p = realloc(p, size)) == NULL)
		abort();
	return p;
}

/* The hot path: no system call, no lock, no floating point. */

/* Out of line: a call in record() would have it save registers. */
static uint64_t __attribute__((noinline, cold))
stamp_mono(void)
{
	struct timespec ts;

	vdso_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t
stamp(void)
{
	if (__builtin_expect(tsc_clock, 1))
		return __builtin_ia32_rdtsc();
	return stamp_mono();
}

static void
shadow_release(void *p)
{
	munmap(p, SHADOW * sizeof(struct shadow));
}

static void
slot_release(void *p)
{
	struct ubuf_slot *s = p;

	__atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
}

/*
 * The file's pages for off..off+len, allocated now: a page of a tmpfs
 * that is full is a SIGBUS at the first store into it (any user can fill
 * /dev/shm), and a tracer never kills what it traces.  fallocate(2) by
 * syscall(), errno as it was: this may run where a probe hit, between
 * two instructions of the program, which must see its errno unchanged
 * (and its vector registers: no libc routine beyond a system call).
 */
static int
reserve(off_t off, off_t len)
{
	int e = errno;
	long r;

	r = syscall(SYS_fallocate, hdr_fd, 0, off, len);
	errno = e;
	return r == 0 ? 0 : -1;
}

/* Once, from where a probe hit: no stdio, no string routines. */
static void
say_no_room(void)
{
	static const char msg[] = ": no room for a thread's ring in "
	    "ARGUS_PATCH_DIR (its file system is full): threads without "
	    "one record nothing\n";
	char buf[sizeof(msg) + 32] = "argus-patch[", *p = buf + 12, d[12];
	int e = errno, n = 0, pid = (int)syscall(SYS_getpid);
	size_t i;

	if (__atomic_exchange_n(&no_room, 1, __ATOMIC_RELAXED))
		return;
	do
		d[n++] = '0' + pid % 10;
	while ((pid /= 10) > 0);
	while (n > 0)
		*p++ = d[--n];
	*p++ = ']';
	for (i = 0; i < sizeof(msg) - 1; i++)
		*p++ = msg[i];
	syscall(SYS_write, STDERR_FILENO, buf, (size_t)(p - buf));
	errno = e;
}

static struct ubuf_slot *
slot_claim(void)
{
	uint32_t zero;
	int i;

	if (hdr == NULL || __atomic_load_n(&no_room, __ATOMIC_RELAXED))
		return NULL;
	if (my_tid == 0)
		my_tid = (int)syscall(SYS_gettid);
	for (i = 0; i < UBUF_SLOTS; i++) {
		struct ubuf_slot *s = ubuf_slot(hdr, i, ring_n);

		zero = 0;
		if (__atomic_compare_exchange_n(&s->owner, &zero,
		    (uint32_t)my_tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if (reserve((char *)s - (char *)hdr,
			    ubuf_slot_size(ring_n)) == -1) {
				__atomic_store_n(&s->owner, 0,
				    __ATOMIC_RELEASE);
				say_no_room();
				return NULL;
			}
			my_slot = s;
			pthread_setspecific(slot_key, my_slot);
			/* Its pages now, not a fault at each of the next
			 * events (MADV_POPULATE_WRITE: Linux 5.14). */
			madvise((void *)((uintptr_t)my_slot & ~(uintptr_t)4095),
			    ubuf_slot_size(ring_n) + 4096,
			    MADV_POPULATE_WRITE);
			return my_slot;
		}
	}
	__atomic_fetch_add(&hdr->unslotted, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * In line in both its callers: as a call, its registers saved and
 * restored cost more than the checks.
 */
static inline __attribute__((always_inline)) void
record(uint8_t name, int nargs, const uint64_t *args)
{
	struct ubuf_slot *s = my_slot;
	union ubuf_cell *c;
	uint64_t h, mask = ring_n - 1;
	int n = UBUF_NCELLS(nargs);

	if (__builtin_expect(s == NULL, 0) && (s = slot_claim()) == NULL)
		return;
	h = s->head;
	/* The recorder's tail read again only when the ring seems full: its
	 * line is the recorder's, and each read of it after a drain a miss. */
	if (__builtin_expect(h + n - s->seen > ring_n, 0)) {
		s->seen = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
		if (h + n - s->seen > ring_n) {
			__atomic_store_n(&s->lost, s->lost + 1,
			    __ATOMIC_RELAXED);
			return;
		}
	}
	/*
	 * The line 8 lines on asked for now: a store into a line not in the
	 * cache holds up the program's next locked instruction (a mutex)
	 * until the line comes.  (PREFETCHW, where the build targets it,
	 * measured the same as the PREFETCHT0 x86-64 has everywhere.)
	 */
	__builtin_prefetch(&s->cell[(h + 16) & mask], 1, 3);
	c = &s->cell[h & mask];
	c->head.ts = stamp();
	c->head.tid = my_tid;
	c->head.cpu = sched_getcpu();
	c->head.probe = name;
	c->head.nargs = nargs;
	/* Each slot stored, the unused as 0: a copy of nargs compiles to
	 * rep movsq, whose start costs more than the rest of the event. */
	c->head.arg[0] = nargs > 0 ? args[0] : 0;
	c->head.arg[1] = nargs > 1 ? args[1] : 0;
	if (n == 2) {
		c = &s->cell[(h + 1) & mask];
		c->more[0] = args[2];
		c->more[1] = nargs > 3 ? args[3] : 0;
		c->more[2] = nargs > 4 ? args[4] : 0;
		c->more[3] = nargs > 5 ? args[5] : 0;
	}
	__atomic_store_n(&s->head, h + n, __ATOMIC_RELEASE);
}

/*
 * The registers the entry trampoline pushed, from the lowest address:
 * rbx r11 r10, the six argument registers in the ABI's order (an
 * event's arguments where they lie, not copied), rax rflags; then the
 * 128 bytes of red zone it stepped over, then the stack as the victim
 * saw it.
 */
enum { R_RBX, R_R11, R_R10, R_RDI, R_RSI, R_RDX, R_RCX, R_R8, R_R9, R_RAX,
    R_FLAGS, R_N };

/*
 * Called by a site's trampoline: 1 if it is to call the function, whose
 * return address is now on the shadow stack (a return probe's), or 0 to
 * jump to it.
 */
static int
hit(const struct site *s, uint64_t *r)
{
	uintptr_t *sp;
	int i;

	for (i = 0; i < s->nent; i++)
		record(s->ent[i].name, s->ent[i].nargs, &r[R_RDI]);
	if (s->nret == 0)
		return 0;
	/* At the function's entry: the return address is on top. */
	sp = (uintptr_t *)((char *)(r + R_N) + 128);
	if (__builtin_expect(my_shadow == NULL, 0)) {
		void *p = mmap(NULL, SHADOW * sizeof(*my_shadow), PROT_READ |
		    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED) {
			my_shadow = p;
			pthread_setspecific(shadow_key, p);
		}
	}
	if (my_shadow == NULL || my_depth >= SHADOW) {
		if (my_slot != NULL)
			__atomic_store_n(&my_slot->lost, my_slot->lost + 1,
			    __ATOMIC_RELAXED);
		return 0;
	}
	my_shadow[my_depth].sp = (uintptr_t)sp;
	my_shadow[my_depth].ret = *sp;
	my_shadow[my_depth].site = s;
	my_depth++;
	return 1;
}

/*
 * Called by a site's trampoline once the function it called returned:
 * r as above (rax, the return value, in r[R_RAX]), and the return address
 * slot just above.  Returns where the function should have returned.
 */
static uintptr_t
ret_hit(uint64_t *r)
{
	uintptr_t sp = (uintptr_t)(r + R_N);
	const struct site *s;
	int i;

	/* Frames a longjmp or an exception unwound past are dropped. */
	while (my_depth > 0 && my_shadow[my_depth - 1].sp < sp)
		my_depth--;
	if (my_depth == 0 || my_shadow[my_depth - 1].sp != sp) {
		say("return to an address not on the shadow stack: aborting");
		abort();
	}
	my_depth--;
	s = my_shadow[my_depth].site;
	for (i = 0; i < s->nret; i++)
		record(s->ret[i].name, 1, &r[R_RAX]);
	return my_shadow[my_depth].ret;
}

/* Code generation. */

struct buf {
	uint8_t		*p;
	size_t		 n, cap;
};

static void
emit(struct buf *b, const void *bytes, size_t n)
{
	if (b->n + n <= b->cap)
		memcpy(b->p + b->n, bytes, n);
	b->n += n;
}

#define EMIT(b, ...)	do {						\
	static const uint8_t x_[] = { __VA_ARGS__ };			\
	emit((b), x_, sizeof(x_));					\
} while (0)

static void
emit64(struct buf *b, uint64_t v)
{
	emit(b, &v, 8);
}

/*
 * Save what a C call may clobber, call fn(arg, regs) (arg: rdi).  The
 * flags are saved only where they may be live: at a function's entry or
 * return the ABI leaves them undefined (DF clear, which C never sets),
 * and popfq is the dearest instruction here.  Their slot is kept either
 * way, so the registers are where hit() looks.
 */
static void
emit_call(struct buf *b, int has_arg, uint64_t arg, uint64_t fn, int flags)
{
	if (flags)
		EMIT(b, 0x9c);			/* pushfq */
	else
		EMIT(b, 0x48, 0x8d, 0x64, 0x24, 0xf8);	/* lea -8(%rsp),%rsp */
	EMIT(b, 0x50,				/* push rax */
	    0x41, 0x51, 0x41, 0x50, 0x51, 0x52,	/* r9 r8 rcx rdx */
	    0x56, 0x57,				/* rsi rdi */
	    0x41, 0x52, 0x41, 0x53,		/* r10 r11 */
	    0x53,				/* push rbx */
	    0x48, 0x89, 0xe3,			/* mov %rsp,%rbx */
	    0x48, 0x83, 0xe4, 0xf0);		/* and $-16,%rsp */
	if (has_arg) {
		EMIT(b, 0x48, 0x89, 0xde);	/* mov %rbx,%rsi */
		EMIT(b, 0x48, 0xbf);		/* movabs $arg,%rdi */
		emit64(b, arg);
	} else
		EMIT(b, 0x48, 0x89, 0xdf);	/* mov %rbx,%rdi */
	EMIT(b, 0x48, 0xb8);			/* movabs $fn,%rax */
	emit64(b, fn);
	EMIT(b, 0xff, 0xd0);			/* call *%rax */
}

static void
emit_restore(struct buf *b, int flags)
{
	EMIT(b, 0x48, 0x89, 0xdc,		/* mov %rbx,%rsp */
	    0x5b,				/* pop rbx */
	    0x41, 0x5b, 0x41, 0x5a,		/* r11 r10 */
	    0x5f, 0x5e, 0x5a, 0x59,		/* rdi rsi rdx rcx */
	    0x41, 0x58, 0x41, 0x59,		/* r8 r9 */
	    0x58);				/* rax */
	if (flags)
		EMIT(b, 0x9d);			/* popfq */
	else
		EMIT(b, 0x48, 0x8d, 0x64, 0x24, 0x08);	/* lea 8(%rsp),%rsp */
}

/* Trampoline pages: near the code they serve, for rel32 both ways. */
struct tpage {
	uint8_t		*base;
	size_t		 used, size;
};

static struct tpage	 tpages[32];
static int		 ntpages;

static int
near(uintptr_t a, uintptr_t b)
{
	intptr_t d = (intptr_t)(a - b);

	return d > -0x7ff00000L && d < 0x7ff00000L;
}

static uint8_t *
tramp_alloc(uintptr_t site, size_t n, char *why, size_t whysz)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t hint;
	void *p;
	int i, k;

	for (i = 0; i < ntpages; i++)
		if (tpages[i].size - tpages[i].used >= n &&
		    near((uintptr_t)tpages[i].base, site) &&
		    near((uintptr_t)tpages[i].base + tpages[i].size, site)) {
			p = tpages[i].base + tpages[i].used;
			tpages[i].used += (n + 15) & ~(size_t)15;
			return p;
		}
	if (ntpages == (int)(sizeof(tpages) / sizeof(tpages[0]))) {
		snprintf(why, whysz, "out of trampoline pages");
		return NULL;
	}
	/* Below the object first (its heap is usually above), then above. */
	for (k = 1; k < 4096; k++) {
		hint = (site & ~(uintptr_t)0xffff) - (uintptr_t)k * 0x100000;
		if (k >= 2048)
			hint = (site & ~(uintptr_t)0xffff) +
			    (uintptr_t)(k - 2047) * 0x100000;
		p = mmap((void *)hint, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if (!near((uintptr_t)p, site) ||
		    !near((uintptr_t)p + pg, site)) {
			munmap(p, pg);
			continue;
		}
		tpages[ntpages].base = p;
		tpages[ntpages].size = pg;
		tpages[ntpages].used = (n + 15) & ~(size_t)15;
		ntpages++;
		return p;
	}
	snprintf(why, whysz, "no free page within 2 GiB for the trampoline");
	return NULL;
}

static ZydisDecoder	 dec;

/*
 * Whether a direct branch in the code from `from' (a function's entry)
 * lands strictly inside [a, a + len): the rest of a run of instructions
 * must be entered only from its first.  A linear sweep, up to a decoding
 * failure or SCAN_MAX bytes.
 */
static int
branch_into(uintptr_t from, uintptr_t a, size_t len, uintptr_t *who)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZyanU64 target;
	uintptr_t pc = from;
	int i;

	while (pc < from + SCAN_MAX) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, (void *)pc, 15,
		    &in, op)))
			break;
		for (i = 0; i < in.operand_count_visible; i++)
			if (op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			    op[i].imm.is_relative &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[i],
			    pc, &target)) && target > a && target < a + len) {
				*who = pc;
				return 1;
			}
		pc += in.length;
	}
	return 0;
}

/*
 * The victim at s->addr, checked and copied to dst with its RIP-relative
 * operands fixed for running at dst: its length (>= 5), or 0 with why.
 */
static size_t
relocate(const struct site *s, uint8_t *dst, char *why, size_t whysz)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	uintptr_t pc = s->addr, who;
	size_t len = 0;
	int64_t disp;
	int i, n = 0;

	while (len < 5) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, (void *)pc, 15,
		    &in, op))) {
			snprintf(why, whysz, "cannot decode the instruction at "
			    "+%zu", len);
			return 0;
		}
		switch (in.meta.category) {
		case ZYDIS_CATEGORY_COND_BR:
		case ZYDIS_CATEGORY_UNCOND_BR:
		case ZYDIS_CATEGORY_CALL:
		case ZYDIS_CATEGORY_RET:
		case ZYDIS_CATEGORY_SYSCALL:
		case ZYDIS_CATEGORY_SYSRET:
		case ZYDIS_CATEGORY_INTERRUPT:
		case ZYDIS_CATEGORY_SYSTEM:
			snprintf(why, whysz, "the instruction at +%zu (%s) "
			    "transfers control", len,
			    ZydisMnemonicGetString(in.mnemonic));
			return 0;
		default:
			break;
		}
		for (i = 0; i < in.operand_count; i++)
			if (op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			    op[i].imm.is_relative) {
				snprintf(why, whysz, "the instruction at +%zu "
				    "(%s) has a relative immediate", len,
				    ZydisMnemonicGetString(in.mnemonic));
				return 0;
			}
		memcpy(dst + len, (void *)pc, in.length);
		if (in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) {
			/* A RIP-relative operand: rebase its disp32. */
			if (in.raw.disp.size != 32) {
				snprintf(why, whysz, "the instruction at +%zu "
				    "is relative without a disp32", len);
				return 0;
			}
			disp = in.raw.disp.value + (int64_t)(pc -
			    (uintptr_t)(dst + len));
			if (disp < INT32_MIN || disp > INT32_MAX) {
				snprintf(why, whysz, "the RIP-relative operand "
				    "at +%zu is out of reach of the "
				    "trampoline", len);
				return 0;
			}
			int32_t d32 = (int32_t)disp;
			memcpy(dst + len + in.raw.disp.offset, &d32, 4);
		}
		len += in.length;
		pc += in.length;
		n++;
		if (len < 5 && !s->run) {
			snprintf(why, whysz, "the victim instruction is %zu "
			    "bytes, fewer than the 5 of a jmp ('run' in the "
			    "set would take the instructions after it too)",
			    len);
			return 0;
		}
	}
	/* A thread stopped between two of them would resume in the jmp. */
	if (n > 1 && s->multi) {
		snprintf(why, whysz, "a run of %d instructions while other "
		    "threads run: one may be inside it", n);
		return 0;
	}
	if (n > 1 && branch_into(s->addr, s->addr, len, &who)) {
		snprintf(why, whysz, "the run of %d instructions (%zu bytes) "
		    "is entered by a branch at %+ld", n, len,
		    (long)(who - s->addr));
		return 0;
	}
	return len;
}

/* /proc/self/task's entries: the threads running now. */
static int
nthreads(void)
{
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if ((dir = opendir("/proc/self/task")) == NULL)
		return 2;
	while ((d = readdir(dir)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/*
 * The jmp over the victim, in one store another thread sees whole: 8
 * bytes, or 16 with cmpxchg16b, aligned around it.  Across a 16-byte line
 * only while this thread is the process's only one.
 */
static int
write_jmp(uintptr_t a, uintptr_t to, int multi, char *why, size_t whysz)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t first = a & ~(uintptr_t)(pg - 1);
	uint8_t j[5];
	int32_t rel = (int32_t)((intptr_t)to - (intptr_t)(a + 5));
	size_t span = (a + 5 - first > (size_t)pg) ? 2 * pg : pg;
	int ok = 1;

	j[0] = 0xe9;
	memcpy(j + 1, &rel, 4);
	if ((a & ~7UL) != ((a + 4) & ~7UL) && (a & ~15UL) != ((a + 4) & ~15UL)
	    && multi) {
		snprintf(why, whysz, "the victim crosses a 16-byte line and "
		    "other threads run: cannot write the jmp atomically");
		return -1;
	}
	if (mprotect((void *)first, span, PROT_READ | PROT_WRITE |
	    PROT_EXEC) == -1) {
		snprintf(why, whysz, "mprotect: %s", strerror(errno));
		return -1;
	}
	if ((a & ~7UL) == ((a + 4) & ~7UL)) {
		uint64_t *w = (uint64_t *)(a & ~7UL), v = *w;

		memcpy((uint8_t *)&v + (a & 7), j, 5);
		__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	} else if ((a & ~15UL) == ((a + 4) & ~15UL)) {
		unsigned __int128 *w = (unsigned __int128 *)(a & ~15UL);
		unsigned __int128 old = *w, nv = old;
		uint64_t lo, hi;

		memcpy((uint8_t *)&nv + (a & 15), j, 5);
		lo = (uint64_t)old;
		hi = (uint64_t)(old >> 64);
		__asm__ volatile("lock cmpxchg16b %0"
		    : "+m"(*w), "+a"(lo), "+d"(hi)
		    : "b"((uint64_t)nv), "c"((uint64_t)(nv >> 64))
		    : "memory", "cc");
	} else
		memcpy((void *)a, j, 5);
	if (mprotect((void *)first, span, PROT_READ | PROT_EXEC) == -1)
		ok = 0;
	__builtin___clear_cache((void *)a, (void *)(a + 5));
	return ok ? 0 : -1;
}

static int
place(struct site *s, int multi)
{
	uint8_t code[TRAMP_MAX], *t;
	char why[256];
	struct buf b = { code, 0, sizeof(code) };
	size_t vlen, at_victim, at_je = 0, at_call = 0;
	int32_t rel;

	if ((t = tramp_alloc(s->addr, TRAMP_MAX, why, sizeof(why))) == NULL)
		goto refuse;
	/* Executable throughout: other trampolines on the page may run. */
	if (mprotect((void *)((uintptr_t)t & ~(uintptr_t)4095), 4096,
	    PROT_READ | PROT_WRITE | PROT_EXEC) == -1) {
		snprintf(why, sizeof(why), "mprotect: %s", strerror(errno));
		goto refuse;
	}
	EMIT(&b, 0x48, 0x8d, 0x64, 0x24, 0x80);	/* lea -128(%rsp),%rsp */
	emit_call(&b, 1, (uint64_t)s, (uint64_t)hit, !s->entry);
	if (s->entry)
		EMIT(&b, 0x85, 0xc0);		/* test %eax,%eax */
	emit_restore(&b, !s->entry);
	EMIT(&b, 0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0); /* lea 128(%rsp) */
	/*
	 * At a function's entry (where a return probe goes), when hit() kept
	 * the return address: the function called, its return address ours,
	 * so that its ret and ours each meet the CPU's prediction (a return
	 * address swapped for a trampoline's made the function's ret a
	 * misprediction); ret_hit() gives back the address to return to.
	 * The flags are the ABI's to clobber there.
	 */
	if (s->entry) {
		EMIT(&b, 0x0f, 0x84);		/* je victim */
		at_je = b.n;
		b.n += 4;
		EMIT(&b, 0x48, 0x8d, 0x64, 0x24, 0x08);	/* lea 8(%rsp),%rsp */
		EMIT(&b, 0xe8);			/* call victim */
		at_call = b.n;
		b.n += 4;
		EMIT(&b, 0x48, 0x8d, 0x64, 0x24, 0xf8);	/* lea -8(%rsp),%rsp */
		emit_call(&b, 0, 0, (uint64_t)ret_hit, 0);
		EMIT(&b, 0x48, 0x89, 0x43, 8 * R_N);	/* mov %rax,88(%rbx) */
		emit_restore(&b, 0);
		EMIT(&b, 0xc3);			/* ret */
	}
	at_victim = b.n;
	/* The longest victim relocate() writes (a run 4 bytes short of a
	 * jmp, then an instruction of 15) and the jmp back fit after it:
	 * checked before relocate() writes into the page. */
	if (at_victim + 4 + 15 + 5 > TRAMP_MAX) {
		snprintf(why, sizeof(why), "trampoline too long");
		goto refuse;
	}
	if (s->entry) {
		rel = (int32_t)(at_victim - (at_je + 4));
		memcpy(code + at_je, &rel, 4);
		rel = (int32_t)(at_victim - (at_call + 4));
		memcpy(code + at_call, &rel, 4);
	}
	/* Relocated for where it runs: its RIP-relative operands too. */
	if ((vlen = relocate(s, t + at_victim, why, sizeof(why))) == 0)
		goto refuse;
	memcpy(code + at_victim, t + at_victim, vlen);
	b.n = at_victim + vlen;
	{
		int k;

		for (k = 0; k < nstopped; k++)
			if (stopped_at[k] > s->addr &&
			    stopped_at[k] < s->addr + vlen) {
				snprintf(why, sizeof(why), "a stopped thread "
				    "is at +%llu, inside the victim",
				    (unsigned long long)(stopped_at[k] -
				    s->addr));
				goto refuse;
			}
	}
	rel = (int32_t)((intptr_t)(s->addr + vlen) - (intptr_t)(t + b.n + 5));
	EMIT(&b, 0xe9);
	emit(&b, &rel, 4);
	memcpy(t, code, b.n);
	mprotect((void *)((uintptr_t)t & ~(uintptr_t)4095), 4096,
	    PROT_READ | PROT_EXEC);
	if (write_jmp(s->addr, (uintptr_t)t, multi, why, sizeof(why)) == -1)
		goto refuse;
	if (verbose) {
		ZydisDisassembledInstruction d;
		char list[256] = "";
		size_t k;

		for (k = 0; k < vlen && ZYAN_SUCCESS(ZydisDisassembleATT(
		    ZYDIS_MACHINE_MODE_LONG_64, s->addr + k, (void *)(t +
		    at_victim + k), vlen - k, &d)); k += d.info.length)
			snprintf(list + strlen(list), sizeof(list) -
			    strlen(list), "%s%s", k ? "; " : "", d.text);
		say("%s: %s patched: %s (%zu bytes)", s->where,
		    s->first->event, list, vlen);
	}
	return 0;
refuse:
	say("%s: probe %s (%s:%s%s) refused: %s", s->where, s->first->event,
	    s->first->lib, s->first->deref ? "*" : "", s->first->sym, why);
	return -1;
}

/* Probe sets. */

static int
name_index(const char *ev)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (strcmp(names[i], ev) == 0)
			return i;
	if (nnames == UBUF_PROBES)
		return -1;
	names[nnames] = strdup(ev);
	return nnames++;
}

/* A set by name: beside this library (the build tree's patchers/), or
 * PREFIX/share/argus/probes when installed in PREFIX/lib/argus. */
static FILE *
open_set(const char *name, char *path, size_t size)
{
	static const char *const dirs[] = { ".", "../../share/argus/probes" };
	Dl_info di;
	char self[PATH_MAX], *slash;

	snprintf(path, size, "%s", name);
	if (strchr(name, '/') != NULL)
		return fopen(name, "re");
	if (dladdr((void *)open_set, &di) == 0 || di.dli_fname == NULL)
		return NULL;
	snprintf(self, sizeof(self), "%s", di.dli_fname);
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	else
		snprintf(self, sizeof(self), ".");
	return probeset_find(name, self, dirs, sizeof(dirs) / sizeof(dirs[0]),
	    path, size);
}

_Static_assert(PROBESET_MAXARGS <= UBUF_MAXARGS &&
    PROBESET_MAXEVENT < UBUF_NAMELEN, "a probe set's line fits a ring's");

/* A set's lines (lib/probeset.h): a malformed one patches nothing. */
static int
read_set(const char *name)
{
	char path[PATH_MAX], where[PATH_MAX + 32], err[PATH_MAX];
	char *line = NULL;
	const char *base;
	size_t cap = 0;
	unsigned long n = 0;
	struct probeline pl;
	struct probe pr;
	int r, i;
	FILE *f;

	if ((f = open_set(name, path, sizeof(path))) == NULL) {
		say("probe set %s: %s", name, strerror(errno ? errno : ENOENT));
		return -1;
	}
	base = strrchr(path, '/');
	while (getline(&line, &cap, f) != -1) {
		n++;
		if ((r = probeset_line(line, &pl, err, sizeof(err))) == 0)
			continue;
		snprintf(where, sizeof(where), "%s:%lu", base ? base + 1 : path,
		    n);
		if (r == -1) {
			say("%s: %s", where, err);
			goto bad;
		}
		memset(&pr, 0, sizeof(pr));
		pr.pending = 1;
		pr.off = pl.off;
		pr.deref = pl.deref;
		pr.ret = pl.ret;
		pr.nargs = pl.nargs;
		pr.run = pl.run;
		pr.lib = strdup(pl.lib);
		pr.sym = strdup(pl.sym);
		pr.event = strdup(pl.event);
		pr.where = strdup(where);
		if ((i = name_index(pr.event)) < 0) {
			say("%s: more than %d event names", pr.where,
			    UBUF_PROBES);
			goto bad;
		}
		pr.name = i;
		probes = realloc(probes, (nprobes + 1) * sizeof(*probes));
		if (probes == NULL)
			abort();
		probes[nprobes++] = pr;
	}
	fclose(f);
	free(line);
	return 0;
bad:
	fclose(f);
	free(line);
	return -1;
}

/* Loaded objects. */

struct lookup {
	const struct probe *pr;
	char		 path[PATH_MAX];
	uintptr_t	 base;
	const ElfW(Phdr) *ph;
	int		 phnum;
	int		 found;
};

static int
match_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	const char *name = info->dlpi_name, *base;
	char real[PATH_MAX], self[PATH_MAX];
	ssize_t n;

	(void)size;
	if (name == NULL || *name == '\0') {
		/* The executable. */
		if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <
		    0)
			return 0;
		self[n] = '\0';
		name = self;
	}
	if (strchr(l->pr->lib, '/') != NULL) {
		if (realpath(l->pr->lib, real) == NULL)
			return 0;
		if (strcmp(real, name) != 0) {
			char r2[PATH_MAX];

			if (realpath(name, r2) == NULL || strcmp(r2, real))
				return 0;
		}
	} else {
		base = strrchr(name, '/');
		if (strcmp(base ? base + 1 : name, l->pr->lib) != 0)
			return 0;
	}
	snprintf(l->path, sizeof(l->path), "%s", name);
	l->base = info->dlpi_addr;
	l->ph = info->dlpi_phdr;
	l->phnum = info->dlpi_phnum;
	l->found = 1;
	return 1;
}

/* A probe's address in this process: 0 when its object is not loaded. */
static uintptr_t
locate(const struct probe *pr, uintptr_t *base, char *why, size_t whysz)
{
	struct lookup l;
	uint64_t off;
	int i;

	memset(&l, 0, sizeof(l));
	l.pr = pr;
	dl_iterate_phdr(match_obj, &l);
	if (!l.found) {
		snprintf(why, whysz, "not loaded");
		return 0;
	}
	*base = l.base;
	if (elf_locate(l.path, pr->sym, pr->off, pr->deref, &off, why,
	    whysz) == -1)
		return 0;
	for (i = 0; i < l.phnum; i++) {
		const ElfW(Phdr) *p = &l.ph[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) &&
		    off >= p->p_offset && off < p->p_offset + p->p_filesz)
			return l.base + p->p_vaddr + (off - p->p_offset);
	}
	snprintf(why, whysz, "file offset %#llx is in no executable segment",
	    (unsigned long long)off);
	return 0;
}

static struct site *
site_at(uintptr_t a, const struct probe *pr)
{
	int i;

	for (i = 0; i < nsites; i++)
		if (sites[i].addr == a && !sites[i].dead)
			return &sites[i];
	if (nsites == MAXSITES)
		return NULL;
	sites[nsites].addr = a;
	sites[nsites].first = pr;
	snprintf(sites[nsites].where, sizeof(sites[nsites].where), "%s",
	    pr->where);
	return &sites[nsites++];
}

/* The shared buffer file, published last. */
static int
open_ubuf(void)
{
	char name[64];
	struct ubuf_hdr *h;
	int fd = -1, i, e;

	for (i = 0; i < 1000 && fd == -1; i++) {
		snprintf(name, sizeof(name), "%d-%d.ubuf", (int)getpid(), i);
		fd = openat(dirfd_, name, O_RDWR | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST)
			break;
	}
	if (fd == -1) {
		say("%s: %s: not patching", name, strerror(errno));
		return -1;
	}
	/* Sized (sparse), then the pages written before a slot is claimed
	 * allocated: the header, and each slot's counters (slot_claim()
	 * allocates a slot's events). */
	hdr_fd = fd;
	e = ftruncate(fd, ubuf_size(ring_n)) == -1 ? errno : 0;
	if (e == 0)
		e = posix_fallocate(fd, 0, sizeof(*h));
	for (i = 0; e == 0 && i < UBUF_SLOTS; i++)
		e = posix_fallocate(fd, sizeof(*h) + i * ubuf_slot_size(ring_n),
		    offsetof(struct ubuf_slot, cell));
	if (e == 0 && (h = mmap(NULL, ubuf_size(ring_n), PROT_READ |
	    PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		e = errno;
	if (e != 0) {
		say("%s: %s: not patching", name, strerror(e));
		unlinkat(dirfd_, name, 0);
		close(fd);
		hdr_fd = -1;
		return -1;
	}
	h->version = UBUF_VERSION;
	h->pid = getpid();
	h->nslots = UBUF_SLOTS;
	h->ncells = ring_n;
	h->nprobes = nnames;
	h->clock = tsc_clock ? UBUF_CLOCK_TSC : UBUF_CLOCK_MONO;
	for (i = 0; i < nnames; i++)
		snprintf(h->name[i], UBUF_NAMELEN, "%s", names[i]);
	__atomic_store_n(&h->magic, UBUF_MAGIC, __ATOMIC_RELEASE);
	hdr = h;
	snprintf(hdr_name, sizeof(hdr_name), "%s", name);
	return 0;
}

/* A forked child records into a file of its own, from a fresh slot. */
static void
after_fork(void)
{
	my_slot = NULL;
	my_tid = 0;
	if (hdr != NULL) {
		munmap(hdr, ubuf_size(ring_n));
		hdr = NULL;
		close(hdr_fd);
		hdr_fd = -1;
		no_room = 0;
		if (open_ubuf() == 0)
			slot_claim();	/* before fork() returns, as at start */
	}
}

/*
 * Places the probes whose objects are loaded and were not before: all of
 * them at start-up, then those of each dlopen() (argus_patch_rescan).
 */
static void
scan(int startup)
{
	char why[PATH_MAX + 128];
	int i, first = nsites, placed = 0, multi;
	uintptr_t a, base = 0;
	struct site *st;

	for (i = 0; i < nprobes; i++) {
		struct probe *pr = &probes[i];

		if (!pr->pending)
			continue;
		if ((a = locate(pr, &base, why, sizeof(why))) == 0) {
			if (strcmp(why, "not loaded") != 0)
				pr->pending = 0;
			if ((verbose && startup) || !pr->pending)
				say("%s: probe %s (%s:%s%s): %s", pr->where,
				    pr->event, pr->lib, pr->deref ? "*" : "",
				    pr->sym, why);
			continue;
		}
		pr->pending = 0;
		pr->base = base;
		if ((st = site_at(a, pr)) == NULL) {
			say("%s: more than %d places patched", pr->where,
			    MAXSITES);
			break;
		}
		st->base = base;
		st->run |= pr->run;
		/* The entry of a function: SYMBOL, or what *TABLE+OFF
		 * points to. */
		if (st->first == pr)
			st->entry = pr->deref || pr->off == 0;
		else if (!(pr->deref || pr->off == 0))
			st->entry = 0;
		if (pr->ret && pr->off != 0 && !pr->deref) {
			say("%s: probe %s refused: a return probe goes on the "
			    "function's entry, not +%llu", pr->where,
			    pr->event, (unsigned long long)pr->off);
			continue;
		}
		if (pr->ret && st->nret < MAXPER) {
			st->ret[st->nret].name = pr->name;
			st->ret[st->nret++].nargs = 1;
		} else if (!pr->ret && st->nent < MAXPER) {
			st->ent[st->nent].name = pr->name;
			st->ent[st->nent++].nargs = pr->nargs;
		}
	}
	if (nsites == first)
		return;
	if (!recording) {
		if (pthread_key_create(&slot_key, slot_release) != 0 ||
		    pthread_key_create(&shadow_key, shadow_release) != 0) {
			say("cannot set up recording: not patching");
			ready = 0;
			return;
		}
		pthread_atfork(NULL, NULL, after_fork);
		recording = 1;
	}
	if (hdr == NULL && (no_room || open_ubuf() == -1)) {
		/* open_ubuf() said why, once: no second try at a dlopen(). */
		no_room = 1;
		nsites = first;
		return;
	}
	/* Under argus patch --pid every other thread is stopped, and where
	 * it stopped is checked against each victim (place()). */
	multi = nstopped > 0 ? 0 : nthreads() > 1;
	for (i = first; i < nsites; i++) {
		sites[i].multi = multi;
		if ((sites[i].nent || sites[i].nret) && place(&sites[i],
		    multi) == 0)
			placed++;
	}
	nplaced += placed;
	/* This thread's ring now, faulted in before main() runs: most
	 * programs record on their main thread first. */
	if (placed > 0 && my_slot == NULL)
		slot_claim();
	if (verbose)
		say("%d of %d places patched%s", placed, nsites - first,
		    startup ? "" : " in objects dlopen()ed");
	if (nplaced == 0) {
		/* Nothing will ever be recorded: leave no file behind. */
		unlinkat(dirfd_, hdr_name, 0);
		munmap(hdr, ubuf_size(ring_n));
		hdr = NULL;
		close(hdr_fd);
		hdr_fd = -1;
	}
}

/*
 * Called by libargus-audit.so (LD_AUDIT) when a dlopen() has mapped new
 * objects: the loader holds its lock, the objects are not relocated and
 * their constructors have not run, so none of their code runs while it
 * is patched.  Before patch_init has read the sets, nothing is done
 * (and nothing called: this object may not be relocated yet).
 */
__attribute__((visibility("default"))) void
argus_patch_rescan(void)
{
	if (!ready)
		return;
	scan(0);
}

/*
 * Called by libargus-audit.so when the object loaded at base is about to
 * be unmapped (dlclose()): its sites are forgotten and its probes looked
 * for again, should it be loaded again, perhaps at the same address.
 */
__attribute__((visibility("default"))) void
argus_patch_unmapped(uintptr_t base)
{
	int i;

	if (!ready)
		return;
	for (i = 0; i < nsites; i++)
		if (sites[i].base == base)
			sites[i].dead = 1;
	for (i = 0; i < nprobes; i++)
		if (!probes[i].pending && probes[i].base == base)
			probes[i].pending = 1;
}

/*
 * ARGUS_PATCH_RING: the cells of a thread's ring, a power of two; a
 * test's small ring, or a large one for a program whose bursts outrun
 * its recorder.
 */
static void
ring_size(const char *v)
{
	char *end;
	unsigned long n;

	if (v == NULL || *v == '\0')
		return;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || n < UBUF_CELLS_MIN || n > UBUF_CELLS_MAX ||
	    (n & (n - 1)) != 0) {
		say("%s=%s: not a power of two from %d to %d: %d cells a "
		    "thread", UBUF_RING_ENV, v, UBUF_CELLS_MIN,
		    UBUF_CELLS_MAX, UBUF_CELLS);
		return;
	}
	ring_n = n;
}

/*
 * Whether the kernel keeps time by the TSC: then it found the TSCs of all
 * CPUs in step and steady, and the recorder can convert one to
 * CLOCK_MONOTONIC.  UBUF_CLOCK_ENV=mono asks for clock_gettime() anyway.
 */
static int
clock_is_tsc(void)
{
	static const char src[] =
	    "/sys/devices/system/clocksource/clocksource0/current_clocksource";
	const char *v = getenv(UBUF_CLOCK_ENV);
	char buf[16];
	ssize_t n;
	int fd;

	if (v != NULL && strcmp(v, "mono") == 0)
		return 0;
	if ((fd = open(src, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n == 4 && memcmp(buf, "tsc\n", 4) == 0;
}

static int
start(const char *sets_, const char *dir)
{
	char *sets, *s, *save;
	void *vdso;

	if ((dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		say("%s: %s: not patching", dir, strerror(errno));
		return -1;
	}
	vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (vdso != NULL)
		vdso_gettime = (int (*)(clockid_t, struct timespec *))
		    dlsym(vdso, "__vdso_clock_gettime");
	if (vdso_gettime == NULL)
		vdso_gettime = clock_gettime;
	tsc_clock = clock_is_tsc();
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
	    ZYDIS_STACK_WIDTH_64);
	sets = strdup(sets_);
	for (s = strtok_r(sets, ":", &save); s != NULL;
	    s = strtok_r(NULL, ":", &save))
		if (read_set(s) == -1) {
			say("not patching");
			return -1;
		}
	free(sets);
	ready = 1;
	scan(1);
	return nplaced;
}

__attribute__((constructor)) static void
patch_init(void)
{
	const char *sets, *dir;

	if ((sets = getenv("ARGUS_PATCH")) == NULL || *sets == '\0')
		return;
	verbose = getenv("ARGUS_PATCH_VERBOSE") != NULL;
	ring_size(getenv(UBUF_RING_ENV));
	if ((dir = getenv("ARGUS_PATCH_DIR")) == NULL || *dir == '\0') {
		say("ARGUS_PATCH_DIR not set: nowhere to record, not patching");
		return;
	}
	start(sets, dir);
}

/*
 * argus patch --pid: called in a running process, stopped by ptrace but
 * for the thread that runs this, once dlopen() loaded the library: the
 * constructor found no ARGUS_PATCH.  at: where each stopped thread will
 * go on, so that no victim around it is replaced.  Returns the places
 * patched, -1 when nothing could be, -2 when the process was patched
 * already.
 */
__attribute__((visibility("default"))) int
argus_patch_attach(const char *sets, const char *dir, const uint64_t *at,
    int nat)
{
	int n;

	if (ready || dirfd_ != -1)
		return -2;
	stopped_at = at;
	nstopped = nat;
	n = start(sets, dir);
	stopped_at = NULL;
	nstopped = 0;
	return n;
}
