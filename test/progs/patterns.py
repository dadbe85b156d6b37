#!/usr/bin/python3
"""Hangs of the five patterns of issue 39, for test/bats/patterns.bats.

    patterns.py CASE TRUTH

Each case sets up its hang between real processes (this one, cat, sh,
sleep) and writes its ground truth to TRUTH as key=value lines:
victim_pid, victim_tid where the hung thread is not the first, root_pid
and root_tid (the cause), hang_begin_ns (CLOCK_MONOTONIC) once the hang
has begun.  Every case ends by itself within LIFETIME seconds.

  forkpipe   a process waits for cat's output; cat waits for its input,
             which a second thread of the process will write once a
             shell asleep for 3 s answers it: the process holds the end
             cat waits on, and its waiting thread is not the one that
             will write (no circular wait)
  timedcond  a threaded server: one request holds a lock across a timed
             condition wait (3 s), the next waits for the lock with a
             timeout (10 s); its client waits for the answer
  epollset   a one-threaded epoll server holds a lock (its own) across a
             3 s timer for one client; another client's request waits
             for it: the server itself is the cause, not the other client
  stopped    a server stopped (SIGSTOP) by a shell for 3 s, holding its
             client's connection; the client waits for the answer
  frozen     the same, its cgroup frozen (a freezer of our own, removed
             after): no_freezer=1 where there is none
  busystop   the same, but the shell stops the server while it works on
             the request (a CPU loop): awake, so no wake-up carries the
             stop signal
  groupstop  the same, a server that gives each connection a thread of
             its own, stopped whole while all its threads sleep: the
             client waits on the connection's thread, and its main thread
             took the signal
  epollchild a one-threaded epoll server runs a child for a request
             (sh computing 3 s) and answers when its output ends, read
             in the same loop as its other connections: the client
             waits on the server, the server on its child, not on any
             other member of its set
  heldwait   a child holds a flock(2) across a 3 s timed condition wait
             (threading.Event().wait: a timed futex, not a sleep); this
             process waits for the lock: the kernel names the holder, and
             nobody as what the holder waits for
  busysend   this process sends blocks on a non-blocking Unix stream
             socket and tries again at once whenever the send fails
             (EAGAIN); its reader, a child, stops reading for 3 s: the
             sender never blocks, its tries are the hang
  busyrecv   this process sends a request and polls for the answer with
             a non-blocking receive, tried again at once; its server, a
             child, takes 3 s over one request
  fifoopen   this process opens a FIFO for reading, which waits for a
             writer; its child opens it for writing after 3 s asleep:
             nobody opened it before, and the kernel names no holder
  udpask     this process asks its child, a UDP server, a question on a
             socket not connected, and waits for the answer, which the
             server gives after 3 s asleep: no socket pairs with it
"""
import ctypes, fcntl, os, select, signal, socket, subprocess, sys, threading, time

LIFETIME = 20


def orphan_dies():
    # A child dies with this process, however the test ends it.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)	# PR_SET_PDEATHSIG


def listener():
    # A loopback server's socket, and its port.
    ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(8)
    return ls, ls.getsockname()[1]


def mono():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Truth:
    def __init__(self, path):
        self.path = path
        self.f = open(path, "a")

    def __call__(self, k, v):
        self.f.write(f"{k}={v}\n")
        self.f.flush()


def forkpipe(t):
    # Nothing went through cat yet: no thread of this process was seen
    # to write its input, which the main thread holds as much as the
    # relay that will write it.
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    time.sleep(0.5)
    sh = subprocess.Popen(["sh", "-c", "sleep 3; echo answer"], stdout=subprocess.PIPE)
    def relay():
        line = sh.stdout.readline()
        cat.stdin.write(line); cat.stdin.flush()
    th = threading.Thread(target=relay)
    th.start()
    time.sleep(0.1)
    try:
        with open(f"/proc/{sh.pid}/task/{sh.pid}/children") as f:
            t("root_child", f.read().split()[0])
    except (OSError, IndexError):
        pass
    t("victim_pid", os.getpid()); t("cat_pid", cat.pid)
    t("root_pid", sh.pid); t("relay_tid", th.native_id)
    t("hang_begin_ns", mono())
    cat.stdout.readline()
    t("hang_end_ns", mono())
    th.join(); cat.stdin.close(); cat.wait(); sh.wait()


def serve_threads(ls, handler):
    while True:
        c, _ = ls.accept()
        threading.Thread(target=handler, args=(c,), daemon=True).start()


def timedcond(t):
    # The server is a child; its clients are this process, which no
    # wake-up path of the server's leads back to as an ancestor.
    ls, port = listener()
    r, w = os.pipe()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        os.close(r)
        lock = threading.Lock()
        cond = threading.Condition(threading.Lock())
        def handler(c):
            req = c.recv(64)
            if req.startswith(b"hold"):
                with lock:
                    os.write(w, b"%d\n" % threading.get_native_id())
                    with cond:
                        cond.wait(3)		# nobody notifies: its timeout
            elif not lock.acquire(timeout=10):
                c.sendall(b"timeout\n"); c.close(); return
            else:
                lock.release()
            c.sendall(b"ok\n"); c.close()
        threading.Thread(target=serve_threads, args=(ls, handler), daemon=True).start()
        time.sleep(LIFETIME)
        os._exit(0)
    ls.close(); os.close(w)
    t("root_pid", srv)
    for i in range(3):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"get"); s.recv(64); s.close()
        time.sleep(0.2)
    a = socket.create_connection(("127.0.0.1", port)); a.sendall(b"hold")
    t("root_tid", int(os.read(r, 64)))
    time.sleep(0.3)
    b = socket.create_connection(("127.0.0.1", port))
    b.sendall(b"get")
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    b.recv(64)
    t("hang_end_ns", mono())
    a.recv(64); os.kill(srv, signal.SIGTERM); os.waitpid(srv, 0)


def epollset(t):
    # One thread, one epoll set over every connection: a "slow" request
    # takes the server's own lock (a flag) for 3 s, on a timer of the
    # loop; requests that come meanwhile wait in its queue.
    ls, port = listener()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        ep = select.epoll(); ep.register(ls.fileno(), select.EPOLLIN)
        conns, queue, held_until = {}, [], 0.0
        end = time.monotonic() + LIFETIME
        while time.monotonic() < end:
            now = time.monotonic()
            if held_until and now >= held_until:
                held_until = 0.0
                for c in queue: c.sendall(b"ok\n")
                queue = []
            timeout = max(0.0, held_until - now) if held_until else 1.0
            for fd, ev in ep.poll(timeout):
                if fd == ls.fileno():
                    c, _ = ls.accept(); conns[c.fileno()] = c
                    ep.register(c.fileno(), select.EPOLLIN)
                    continue
                c = conns[fd]; req = c.recv(64)
                if not req:
                    ep.unregister(fd); c.close(); del conns[fd]; continue
                if req.startswith(b"slow"):
                    held_until = time.monotonic() + 3; queue.append(c)
                elif held_until:
                    queue.append(c)
                else:
                    c.sendall(b"ok\n")
        os._exit(0)
    t("root_pid", srv)
    for i in range(3):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"get"); s.recv(64); s.close()
        time.sleep(0.2)
    slow = os.fork()
    if slow == 0:
        orphan_dies()
        a = socket.create_connection(("127.0.0.1", port)); a.sendall(b"slow"); a.recv(64)
        os._exit(0)
    time.sleep(0.3)
    b = socket.create_connection(("127.0.0.1", port))
    t("victim_pid", os.getpid()); t("other_client", slow); t("hang_begin_ns", mono())
    b.sendall(b"get"); b.recv(64)
    t("hang_end_ns", mono())
    os.waitpid(slow, 0); os.kill(srv, signal.SIGTERM); os.waitpid(srv, 0)


def epollchild(t):
    ls, port = listener()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        ep = select.epoll(); ep.register(ls.fileno(), select.EPOLLIN)
        conns, jobs = {}, {}
        end = time.monotonic() + LIFETIME
        while time.monotonic() < end:
            for fd, ev in ep.poll(1.0):
                if fd == ls.fileno():
                    c, _ = ls.accept(); conns[c.fileno()] = c
                    ep.register(c.fileno(), select.EPOLLIN)
                elif fd in jobs:
                    c, job = jobs[fd]
                    if not os.read(fd, 64):
                        ep.unregister(fd); job.stdout.close(); job.wait()
                        del jobs[fd]; c.sendall(b"ok\n")
                else:
                    c = conns[fd]; req = c.recv(64)
                    if not req:
                        ep.unregister(fd); c.close(); del conns[fd]
                        continue
                    secs = "3" if req.startswith(b"slow") else "0.02"
                    # A job that computes, and says when it is done.
                    job = subprocess.Popen(["perl", "-MTime::HiRes=time",
                        "-e", f"$e = time + {secs}; 1 while time < $e;"],
                        stdout=subprocess.PIPE)
                    if secs == "3":
                        t("root_pid", job.pid); t("root_tid", job.pid)
                    jobs[job.stdout.fileno()] = (c, job)
                    ep.register(job.stdout.fileno(), select.EPOLLIN)
        os._exit(0)
    for i in range(3):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"get"); s.recv(64); s.close()
        time.sleep(0.2)
    b = socket.create_connection(("127.0.0.1", port))
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    b.sendall(b"slow"); b.recv(64)
    t("hang_end_ns", mono())
    os.kill(srv, signal.SIGTERM); os.waitpid(srv, 0)


FREEZERS = ("/sys/fs/cgroup/freezer", "/sys/fs/cgroup")


def freezer():
    """A cgroup of our own to freeze, (dir, file, frozen, thawed), or None."""
    for root in FREEZERS:
        d = f"{root}/argus-patterns-{os.getpid()}"
        try:
            os.mkdir(d)
        except OSError:
            continue
        if os.path.exists(f"{d}/freezer.state"):
            return d, "freezer.state", "FROZEN", "THAWED"
        if os.path.exists(f"{d}/cgroup.freeze"):
            return d, "cgroup.freeze", "1", "0"
        os.rmdir(d)
    return None


def stopped(t, freeze=False):
    # The server holds its client's connection and waits for its
    # request; a shell stops it (or freezes its cgroup) before the
    # request comes, and lets it go on 3 s later.
    fz = freezer() if freeze else None
    if freeze and fz is None:
        t("no_freezer", 1)
        return
    ls, port = listener()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        end = time.monotonic() + LIFETIME
        ls.settimeout(1.0)
        while time.monotonic() < end:
            try:
                c, _ = ls.accept()
            except socket.timeout:
                continue
            c.recv(64); c.sendall(b"ok\n"); c.close()
        os._exit(0)
    ls.close()
    t("root_pid", srv)
    for i in range(3):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"get"); s.recv(64); s.close()
        time.sleep(0.2)
    b = socket.create_connection(("127.0.0.1", port))
    time.sleep(0.3)
    if fz:
        d, f, on, off = fz
        t("freezer", d)
        with open(f"{d}/cgroup.procs", "w") as p:
            p.write(str(srv))
        cmd = f"echo {on} > {d}/{f}; sleep 3; echo {off} > {d}/{f}"
    else:
        # As a person's kill -STOP, or job control, would.
        cmd = f"kill -STOP {srv}; sleep 3; kill -CONT {srv}"
    sh = subprocess.Popen(["sh", "-c", cmd])
    time.sleep(0.2)
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    b.sendall(b"get"); b.recv(64)
    t("hang_end_ns", mono())
    sh.wait(); os.kill(srv, signal.SIGKILL); os.waitpid(srv, 0)
    if fz:
        os.rmdir(fz[0])


def busystop(t):
    # The server works on the request for 5 s of CPU; a shell stops it
    # 0.3 s in, and lets it go on 3 s later.
    ls, port = listener()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        c, _ = ls.accept()
        c.recv(64)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            pass
        c.sendall(b"ok\n"); c.close()
        os._exit(0)
    ls.close()
    t("root_pid", srv)
    b = socket.create_connection(("127.0.0.1", port))
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    b.sendall(b"get")
    time.sleep(0.3)
    sh = subprocess.Popen(["sh", "-c", f"kill -STOP {srv}; sleep 3; kill -CONT {srv}"])
    b.recv(64)
    t("hang_end_ns", mono())
    sh.wait(); os.kill(srv, signal.SIGKILL); os.waitpid(srv, 0)


def groupstop(t):
    ls, port = listener()
    srv = os.fork()
    if srv == 0:
        orphan_dies()
        def serve(c):
            c.recv(64); c.sendall(b"ok\n"); c.close()
        ls.settimeout(LIFETIME)
        try:
            while True:
                c, _ = ls.accept()
                threading.Thread(target=serve, args=(c,), daemon=True).start()
        except socket.timeout:
            os._exit(0)
    ls.close()
    t("root_pid", srv)
    b = socket.create_connection(("127.0.0.1", port))
    time.sleep(0.3)
    sh = subprocess.Popen(["sh", "-c", f"kill -STOP {srv}; sleep 3; kill -CONT {srv}"])
    time.sleep(0.2)
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    b.sendall(b"get"); b.recv(64)
    t("hang_end_ns", mono())
    sh.wait(); os.kill(srv, signal.SIGKILL); os.waitpid(srv, 0)


def heldwait(t):
    # Beside the truth file, in the test's own directory, and unlinked once
    # both have it open: a run ended early leaves nothing behind.
    path = t.path + ".lock"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        orphan_dies()
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(w, b"x")
        threading.Event().wait(3)
        os._exit(0)
    os.read(r, 1)
    t("victim_pid", os.getpid())
    t("root_pid", pid)
    t("root_tid", pid)
    fd = os.open(path, os.O_RDWR)
    os.unlink(path)
    t("hang_begin_ns", mono())
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.waitpid(pid, 0)


BLOCK = 65536


def busy_child(serve):
    # A child that runs serve on its end of a Unix stream pair; ours,
    # non-blocking.
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        orphan_dies()
        a.close()
        serve(b)
        os._exit(0)
    b.close()
    a.setblocking(False)
    return a, pid


def send_busily(s, buf):
    sent = 0
    while sent < len(buf):
        try:
            sent += s.send(buf[sent:])
        except BlockingIOError:
            pass


def recv_busily(s):
    while True:
        try:
            return s.recv(64)
        except BlockingIOError:
            pass


def busysend(t):
    def serve(b):
        # Once, after the tenth block: a receive may end past it on a
        # loaded machine, where the eleventh came before it was read.
        n, slept = 0, False
        while True:
            d = b.recv(BLOCK)
            if not d:
                return
            n += len(d)
            if n >= 10 * BLOCK and not slept:
                slept = True
                time.sleep(3)
    a, srv = busy_child(serve)
    t("root_pid", srv)
    for i in range(10):
        send_busily(a, b"x" * BLOCK)
        time.sleep(0.05)
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    for i in range(8):
        send_busily(a, b"x" * BLOCK)
    t("hang_end_ns", mono())
    a.close(); os.waitpid(srv, 0)


def busyrecv(t):
    def serve(b):
        while True:
            d = b.recv(64)
            if not d:
                return
            if d == b"slow":
                time.sleep(3)
            b.sendall(b"ok")
    a, srv = busy_child(serve)
    t("root_pid", srv)
    for i in range(10):
        a.send(b"get"); recv_busily(a)
        time.sleep(0.05)
    t("victim_pid", os.getpid()); t("hang_begin_ns", mono())
    a.send(b"slow"); recv_busily(a)
    t("hang_end_ns", mono())
    a.close(); os.waitpid(srv, 0)


def fifoopen(t):
    # Beside the truth file, in the test's own directory.
    path = t.path + ".fifo"
    os.mkfifo(path, 0o600)
    pid = os.fork()
    if pid == 0:
        orphan_dies()
        time.sleep(3)
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, b"x")
        os._exit(0)
    t("victim_pid", os.getpid())
    t("root_pid", pid)
    t("hang_begin_ns", mono())
    fd = os.open(path, os.O_RDONLY)
    t("hang_end_ns", mono())
    os.unlink(path)
    os.read(fd, 1)
    os.waitpid(pid, 0)


def udpask(t):
    srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    srv.bind(("127.0.0.1", 0))
    pid = os.fork()
    if pid == 0:
        orphan_dies()
        q, peer = srv.recvfrom(16)
        time.sleep(3)
        srv.sendto(b"answer", peer)
        os._exit(0)
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Asked once the server waits for questions (asleep: its one wait is
    # its receive), as a service does: the datagram wakes it.
    for i in range(500):
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "S":
                break
        time.sleep(0.01)
    t("victim_pid", os.getpid())
    t("root_pid", pid)
    t("hang_begin_ns", mono())
    c.sendto(b"question", srv.getsockname())
    c.recvfrom(16)
    t("hang_end_ns", mono())
    os.waitpid(pid, 0)


if __name__ == "__main__":
    signal.alarm(LIFETIME)
    {"forkpipe": forkpipe, "timedcond": timedcond, "epollset": epollset,
     "stopped": stopped, "frozen": lambda t: stopped(t, True),
     "heldwait": heldwait, "busystop": busystop, "epollchild": epollchild,
     "groupstop": groupstop, "busysend": busysend,
     "busyrecv": busyrecv, "fifoopen": fifoopen, "udpask": udpask}[sys.argv[1]](Truth(sys.argv[2]))
