// The Python driver that runs inside the sandbox. It splits the run into two processes so that the
// verdict never depends on the program's process: a supervisor that runs the tests, and a child
// forked from it that runs the program and answers the tests' calls over a pair of pipes. Only plain
// data (None, bool, int, float, str, bytes, complex, containers of them, Fraction, Decimal, range)
// crosses back to the tests by value; anything else stays in the program's process and the tests
// get an opaque reference. So the tests' comparisons, builtins, modules and frames, the end token
// and the verdict descriptor all live in a process the program cannot read, write or signal into a
// pass.

/** Descriptor on which the supervisor reads the end token (first line), then the tests' source. */
export const TESTS_FD = 4;

/** Descriptor on which the supervisor writes the end token once the tests have passed; nothing else holds it. */
export const VERDICT_FD = 5;

/** Exit code of the driver when the tests do not compile (the program did not run). */
export const INVALID_TESTS_EXIT = 2;

/** The supervisor's first line on stderr once the tests compiled, before the program starts; anything after it may be the program's. */
export const STARTED_LINE = 'repute-sandbox: started\n';

/** The supervisor's first line on stderr when the tests do not compile (then the compiler's message). */
export const INVALID_TESTS_LINE = 'repute-sandbox: the tests do not compile\n';

/**
 * The driver's source, run as `python3 -I -B <directory>/driver.py` with the stage-two system-call
 * filter at `<directory>/filter.bpf` (see `_syscall-filter.ts`).
 *
 * The supervisor marks itself non-dumpable (its /proc files, memory and descriptors are then closed
 * to a process without capabilities, as the program's is), closes every inherited descriptor but
 * 0, 1, 2, {@link TESTS_FD} and {@link VERDICT_FD}, forks the child, and only then reads the token
 * and the tests, so the child's copy of its memory holds neither. The child closes both
 * descriptors; both processes install the filter that forbids new processes; the supervisor
 * compiles the tests (exit 2 when they do not compile), says it started, and tells the child to
 * run the program as module `__repute_program__` (its main guard does not run). The child reports
 * the program's global names; the tests run as `__main__` in the supervisor with those names bound
 * to values or references, except dunders and names of builtins (a program's `abs` would change
 * what the tests mean); a standard-library module is the supervisor's own import of it. A thread
 * of the supervisor kills the child when /tmp holds more than `maxTmpFiles` new inodes (polled
 * every 5 ms). A call, attribute, item, `len`, `bool`, `iter`, `repr` or `str` on a
 * reference is answered by the child; `==`, `in` (by iteration), hashing and ordering on a
 * reference are decided by the supervisor (identity, or `TypeError`), never by the program. A
 * function the tests pass to the program stays in the supervisor, and the program can only call
 * it. Any exit, crash or malformed answer of the child fails the run for good, even when the
 * tests catch the exception. After the tests, the supervisor stops the child and writes the token
 * on {@link VERDICT_FD}; when the child died it exits with the child's code (128 + n for signal n).
 */
export function driverSource(directory: string, maxTmpFiles: number): string {
  return String.raw`import builtins, ctypes, decimal, fractions, importlib, json, linecache, os, signal, struct, sys, threading, time, traceback, types

TESTS_FD, VERDICT_FD = ${TESTS_FD}, ${VERDICT_FD}
DIRECTORY = ${JSON.stringify(directory)}
MAX_TMP_FILES = ${maxTmpFiles}
MAX_MESSAGE = 1 << 28
PLAIN_EXCEPTIONS = {
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)
    and not issubclass(value, (StopIteration, StopAsyncIteration))
}

sys.set_int_max_str_digits(0)
libc = ctypes.CDLL(None, use_errno=True)


def say(text):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    data = text.encode("utf-8", "replace")
    while data:
        try:
            data = data[os.write(2, data):]
        except OSError:
            return


def broken_sandbox(what):
    say("repute-sandbox-error: " + what + "\n")
    os._exit(70)


def install_filter(program):
    class Program(ctypes.Structure):
        _fields_ = [("length", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER (one thread: the process).
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        broken_sandbox("could not install the system-call filter: " + os.strerror(ctypes.get_errno()))


def explain(error, skip=0):
    """The traceback of error without the driver's own frames."""
    tb = error.__traceback__
    for _ in range(skip):
        tb = tb.tb_next if tb is not None else None
    report = traceback.TracebackException(type(error), error, tb)
    report.stack = traceback.StackSummary.from_list(
        [frame for frame in report.stack if frame.filename != DIRECTORY + "/driver.py"])
    return "".join(report.format())


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def read_exactly(fd, size):
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def send(fd, message):
    data = json.dumps(message, separators=(",", ":")).encode("utf-8")
    write_all(fd, struct.pack(">I", len(data)) + data)


def receive(fd):
    (size,) = struct.unpack(">I", read_exactly(fd, 4))
    if size > MAX_MESSAGE:
        raise ValueError("message of " + str(size) + " bytes")
    return json.loads(read_exactly(fd, size))


def encode(value, reference):
    """Plain data as tagged JSON; anything else through reference(value)."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        kind = next(kind for kind in (list, tuple, frozenset, set) if isinstance(value, kind))
        return [kind.__name__, [encode(item, reference) for item in kind.__iter__(value)]]
    if isinstance(value, dict):
        return ["dict", [[encode(key, reference), encode(item, reference)] for key, item in dict.items(value)]]
    if isinstance(value, (bytes, bytearray)):
        return ["bytearray" if isinstance(value, bytearray) else "bytes", bytes(value).hex()]
    if isinstance(value, complex):
        return ["complex", complex.__complex__(value).real, complex.__complex__(value).imag]
    if type(value) is range:
        return ["range", value.start, value.stop, value.step]
    if type(value) is fractions.Fraction:
        return ["fraction", value.numerator, value.denominator]
    if type(value) is decimal.Decimal:
        return ["decimal", str(value)]
    if value is Ellipsis:
        return ["ellipsis"]
    if isinstance(value, types.ModuleType) and str(value.__name__).partition(".")[0] in sys.stdlib_module_names:
        # The receiver imports its own copy of a standard module.
        return ["module", str(value.__name__)]
    return reference(value)


# ---------------------------------------------------------------- the program's process (untrusted)

def child(requests, replies, filter_program):
    os.close(TESTS_FD)
    os.close(VERDICT_FD)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    install_filter(filter_program)
    objects = {}

    def reference(value):
        objects[id(value)] = value
        return ["object", id(value)]

    def decode(node):
        if type(node) is not list:
            return node
        tag = node[0]
        if tag == "object":
            return objects[node[1]]
        if tag == "module":
            return importlib.import_module(node[1])
        if tag == "callback":
            return callback(node[1])
        if tag in ("list", "tuple", "set", "frozenset"):
            return getattr(builtins, tag)(decode(item) for item in node[1])
        if tag == "dict":
            return {decode(key): decode(item) for key, item in node[1]}
        if tag in ("bytes", "bytearray"):
            return getattr(builtins, tag)(bytes.fromhex(node[1]))
        if tag == "complex":
            return complex(node[1], node[2])
        if tag == "range":
            return range(node[1], node[2], node[3])
        if tag == "fraction":
            return fractions.Fraction(node[1], node[2])
        if tag == "decimal":
            return decimal.Decimal(node[1])
        return Ellipsis

    def flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass

    def answer(message):
        flush()
        send(replies, message)

    def failure(error):
        return ["raise", type(error).__name__, str(error)[:4096], explain(error)[-8192:]]

    def callback(number):
        def call(*args, **kwargs):
            answer(["callback", number, [encode(arg, reference) for arg in args],
                    [[name, encode(arg, reference)] for name, arg in kwargs.items()]])
            outcome = serve()
            if outcome[0] == "returned":
                return decode(outcome[1])
            error = getattr(builtins, outcome[1], None)
            if isinstance(error, type) and issubclass(error, Exception):
                raise error(outcome[2])
            raise RuntimeError(outcome[1] + ": " + outcome[2])
        return call

    def perform(request):
        operation = request[0]
        if operation == "load":
            module = types.ModuleType("__repute_program__")
            module.__dict__["__builtins__"] = builtins
            sys.modules["__repute_program__"] = module
            path = DIRECTORY + "/program.py"
            with open(path, encoding="utf-8") as source:
                code = compile(source.read(), path, "exec", dont_inherit=True)
            exec(code, module.__dict__)
            return {name: value for name, value in list(module.__dict__.items())
                    if not (name.startswith("__") and name.endswith("__"))}
        target = decode(request[1])
        if operation == "call":
            return target(*[decode(arg) for arg in request[2]], **{name: decode(arg) for name, arg in request[3]})
        if operation == "getattr":
            return getattr(target, request[2])
        if operation == "setattr":
            return setattr(target, request[2], decode(request[3]))
        if operation == "delattr":
            return delattr(target, request[2])
        if operation == "getitem":
            return target[decode(request[2])]
        if operation == "setitem":
            target[decode(request[2])] = decode(request[3])
            return None
        if operation == "delitem":
            del target[decode(request[2])]
            return None
        if operation == "len":
            return len(target)
        if operation == "bool":
            return bool(target)
        if operation == "repr":
            return repr(target)
        if operation == "str":
            return str(target)
        if operation == "iter":
            return iter(target)
        if operation == "next":
            return next(target)
        raise ValueError("unknown request " + repr(operation))

    def serve():
        # Answers requests until the supervisor sends the outcome of a callback (or forever).
        while True:
            request = receive(requests)
            if request[0] in ("returned", "raised"):
                return request
            if request[0] == "quit":
                flush()
                os._exit(0)
            try:
                result = encode(perform(request), reference)
            except SystemExit as stop:
                answer(["exited", repr(stop.code)])
                continue
            except StopIteration:
                answer(["stop"])
                continue
            except BaseException as error:
                if request[0] == "load":
                    flush()
                    say(explain(error))
                answer(failure(error))
                continue
            answer(["value", result])

    try:
        answer(["ready"])
        serve()
    except BaseException:
        pass
    os._exit(1)


# ---------------------------------------------------------------- the supervisor (trusted)

class ProgramError(Exception):
    """An exception of the program that is not a built-in one (its type name and message)."""


class ProgramGone(BaseException):
    """The program's process exited, crashed or answered out of protocol; the run has failed."""


class ProgramObject:
    """A value that stays in the program's process. Comparison, hashing and membership are the
    supervisor's (identity); attributes, items, calls, len, bool, iter, repr and str are the program's."""

    __slots__ = ("_repute_id",)

    def __init__(self, number):
        object.__setattr__(self, "_repute_id", number)

    def __getattr__(self, name):
        return remote("getattr", self, name)

    def __setattr__(self, name, value):
        remote("setattr", self, name, outgoing(value))

    def __delattr__(self, name):
        remote("delattr", self, name)

    def __call__(self, *args, **kwargs):
        return remote("call", self, [outgoing(arg) for arg in args],
                      [[name, outgoing(arg)] for name, arg in kwargs.items()])

    def __getitem__(self, key):
        return remote("getitem", self, outgoing(key))

    def __setitem__(self, key, value):
        remote("setitem", self, outgoing(key), outgoing(value))

    def __delitem__(self, key):
        remote("delitem", self, outgoing(key))

    def __len__(self):
        size = remote("len", self)
        if type(size) is not int or size < 0:
            raise TypeError("the program's __len__ returned " + type(size).__name__ + ", not a non-negative int")
        return size

    def __bool__(self):
        truth = remote("bool", self)
        if type(truth) is not bool:
            raise TypeError("the program's __bool__ returned " + type(truth).__name__)
        return truth

    def __iter__(self):
        iterator = remote("iter", self)
        while True:
            try:
                item = remote("next", iterator)
            except Exhausted:
                return
            yield item

    def __repr__(self):
        text = remote("repr", self)
        return text if type(text) is str else "<program object>"

    def __str__(self):
        text = remote("str", self)
        return text if type(text) is str else "<program object>"


class Exhausted(BaseException):
    """The program's iterator ended (only the supervisor's own iteration raises or catches it)."""


state = {"requests": -1, "replies": -1, "broken": None, "ended": False}
callbacks = []


def fail_for_good(reason):
    if state["broken"] is None:
        state["broken"] = reason
    raise ProgramGone(state["broken"])


def outgoing(value):
    def reference(item):
        if type(item) is ProgramObject:
            return ["object", object.__getattribute__(item, "_repute_id")]
        if callable(item):
            callbacks.append(item)
            return ["callback", len(callbacks) - 1]
        raise TypeError("cannot pass " + type(item).__name__ + " to the program: pass plain data"
                        " (None, bool, int, float, str, bytes, containers of them), the program's own"
                        " objects, or functions")
    return encode(value, reference)


def incoming(node, depth=0):
    # Untrusted: builds only built-in values and ProgramObject; anything else fails the run.
    kind = type(node)
    if node is None or kind is bool or kind is int or kind is float or kind is str:
        return node
    if kind is not list or not node or type(node[0]) is not str or depth > 400:
        raise ValueError("malformed value")
    tag, rest = node[0], node[1:]
    if tag in ("list", "tuple", "set", "frozenset") and len(rest) == 1 and type(rest[0]) is list:
        return getattr(builtins, tag)(incoming(item, depth + 1) for item in rest[0])
    if tag == "dict" and len(rest) == 1 and type(rest[0]) is list:
        result = {}
        for pair in rest[0]:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("malformed dict")
            result[incoming(pair[0], depth + 1)] = incoming(pair[1], depth + 1)
        return result
    if tag in ("bytes", "bytearray") and len(rest) == 1 and type(rest[0]) is str:
        return getattr(builtins, tag)(bytes.fromhex(rest[0]))
    if tag == "complex" and len(rest) == 2 and all(type(part) in (int, float) for part in rest):
        return complex(rest[0], rest[1])
    if tag == "range" and len(rest) == 3 and all(type(part) is int for part in rest):
        return range(*rest)
    if tag == "fraction" and len(rest) == 2 and all(type(part) is int for part in rest):
        return fractions.Fraction(rest[0], rest[1])
    if tag == "decimal" and len(rest) == 1 and type(rest[0]) is str:
        return decimal.Decimal(rest[0])
    if tag == "ellipsis" and not rest:
        return Ellipsis
    if tag == "object" and len(rest) == 1 and type(rest[0]) is int:
        return ProgramObject(rest[0])
    if tag == "module" and len(rest) == 1 and type(rest[0]) is str:
        if rest[0].partition(".")[0] in sys.stdlib_module_names:
            return importlib.import_module(rest[0])
    raise ValueError("malformed value")


def rebuild(reply):
    # An exception of the program as one of the supervisor's: a built-in type by name, else ProgramError.
    if len(reply) != 4 or not all(type(part) is str for part in reply[1:]):
        fail_for_good("the program's process answered out of protocol")
    name, message, details = reply[1], reply[2], reply[3]
    error = None
    if name in PLAIN_EXCEPTIONS:
        try:
            error = getattr(builtins, name)(message)
        except Exception:
            error = None
    if error is None:
        error = ProgramError(name + ": " + message)
    error.add_note("In the program's process:\n" + details.rstrip())
    return error


def remote(operation, target, *fields):
    if state["broken"] is not None:
        raise ProgramGone(state["broken"])
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    message = [operation] if target is None else [operation, outgoing(target), *fields]
    try:
        send(state["requests"], message)
    except Exception:
        fail_for_good("the program's process is gone")
    while True:
        try:
            reply = receive(state["replies"])
        except EOFError:
            state["ended"] = True
            fail_for_good("the program's process ended before the tests finished")
        except Exception as error:
            fail_for_good("the program's process answered out of protocol (" + type(error).__name__ + ")")
        if type(reply) is not list or not reply or type(reply[0]) is not str:
            fail_for_good("the program's process answered out of protocol")
        if reply[0] != "callback":
            break
        run_callback(reply)
    kind = reply[0]
    try:
        if kind == "value" and len(reply) == 2:
            return incoming(reply[1])
    except Exception as error:
        fail_for_good("the program's process answered out of protocol (" + type(error).__name__ + ")")
    if kind == "raise":
        raise rebuild(reply)
    if kind == "stop" and len(reply) == 1 and operation == "next":
        raise Exhausted()
    if kind == "exited" and len(reply) == 2 and type(reply[1]) is str:
        fail_for_good("the program exited (code " + reply[1][:100] + ") before the tests finished")
    fail_for_good("the program's process answered out of protocol")


def run_callback(reply):
    try:
        if len(reply) != 4 or type(reply[1]) is not int or not 0 <= reply[1] < len(callbacks):
            raise ValueError("malformed callback")
        function = callbacks[reply[1]]
        args = [incoming(arg) for arg in reply[2]]
        kwargs = {}
        for pair in reply[3]:
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                raise ValueError("malformed callback")
            kwargs[pair[0]] = incoming(pair[1])
    except Exception as error:
        fail_for_good("the program's process answered out of protocol (" + type(error).__name__ + ")")
    try:
        outcome = ["returned", outgoing(function(*args, **kwargs))]
    except Exception as error:
        outcome = ["raised", type(error).__name__, str(error)[:4096]]
    try:
        send(state["requests"], outcome)
    except Exception:
        fail_for_good("the program's process is gone")


def reap(child_pid):
    """The child's wait status, or None when it had to be killed (it was still running)."""
    if state["broken"] is None:
        try:
            send(state["requests"], ["quit"])
        except Exception:
            pass
    # An honest child flushes its output and exits at once; one that ended is reaped as it finishes.
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        pid, status = os.waitpid(child_pid, os.WNOHANG)
        if pid:
            return status
        if state["broken"] is not None and not state["ended"]:
            break
        time.sleep(0.002)
    os.kill(child_pid, signal.SIGKILL)
    os.waitpid(child_pid, 0)
    return None


def finish(child_pid, passed, token):
    """Stops the child; writes the token when the tests passed; otherwise exits with the child's fate."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    status = reap(child_pid)
    if passed and state["broken"] is None:
        write_all(VERDICT_FD, (token + "\n").encode("ascii"))
        os._exit(0)
    if state["broken"] is not None:
        say("repute-sandbox: " + state["broken"] + "\n")
    if status is not None and os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) not in (0, 70):
        os._exit(os.WEXITSTATUS(status))
    os._exit(1)


def watch_tmp(child_pid):
    # tmpfs caps bytes (bwrap --size) but bwrap cannot cap its inodes; this bounds them to
    # MAX_TMP_FILES plus what the program makes in one 5 ms poll.
    base = os.statvfs("/tmp")
    base = base.f_files - base.f_ffree
    while state["broken"] is None:
        usage = os.statvfs("/tmp")
        made = usage.f_files - usage.f_ffree - base
        if made > MAX_TMP_FILES:
            state["broken"] = ("the run made " + str(made) + " files and directories in /tmp, more than maxTmpFiles = "
                               + str(MAX_TMP_FILES))
            os.kill(child_pid, signal.SIGKILL)
            return
        time.sleep(0.005)


def supervise():
    # Non-dumpable: a process without capabilities (the program) cannot read this one's memory,
    # descriptors or /proc files, nor ptrace it.
    if libc.prctl(4, 0, 0, 0, 0) != 0:
        broken_sandbox("could not make the supervisor non-dumpable: " + os.strerror(ctypes.get_errno()))
    # As PID 1 the supervisor gets no signal from the program it has no handler for; drop Python's
    # SIGINT handler, so that the program cannot raise KeyboardInterrupt in the tests.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in (0, 1, 2, TESTS_FD, VERDICT_FD):
            try:
                os.close(int(name))
            except OSError:
                pass
    with open(DIRECTORY + "/filter.bpf", "rb") as source:
        filter_program = source.read()
    requests_read, requests_write = os.pipe()
    replies_read, replies_write = os.pipe()
    child_pid = os.fork()
    if child_pid == 0:
        os.close(requests_write)
        os.close(replies_read)
        child(requests_read, replies_write, filter_program)
    os.close(requests_read)
    os.close(replies_write)
    state["requests"], state["replies"] = requests_write, replies_read
    install_filter(filter_program)
    try:
        ready = receive(replies_read)
    except Exception:
        ready = None
    if ready != ["ready"]:
        broken_sandbox("the program's process did not start")
    threading.Thread(target=watch_tmp, args=(child_pid,), daemon=True).start()
    chunks = []
    while True:
        chunk = os.read(TESTS_FD, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(TESTS_FD)
    token, _, source = b"".join(chunks).partition(b"\n")
    token = token.decode("ascii")
    try:
        text = source.decode("utf-8")
        tests = compile(text, "tests.py", "exec", dont_inherit=True)
        # Tracebacks of the tests show their lines, as they did when the tests were a file.
        linecache.cache["tests.py"] = (len(text), None, text.splitlines(True), "tests.py")
    except BaseException as error:
        say("repute-sandbox: the tests do not compile\n" + "".join(traceback.format_exception_only(type(error), error)))
        os._exit(${INVALID_TESTS_EXIT})
    say("repute-sandbox: started\n")
    try:
        names = remote("load", None)
    except BaseException:
        # The child wrote the program's traceback; an exit or a crash is said by finish.
        finish(child_pid, False, token)
    passed = False
    try:
        if type(names) is not dict:
            fail_for_good("the program's process answered out of protocol")
        module = types.ModuleType("__main__")
        namespace = module.__dict__
        # A program's global named like a builtin (abs, sorted, print) or a dunder (__name__) would
        # change what the tests mean; the tests keep their own.
        for name, value in names.items():
            if type(name) is str and not hasattr(builtins, name) and not (name.startswith("__") and name.endswith("__")):
                namespace[name] = value
        namespace["__builtins__"] = builtins
        sys.modules["__main__"] = module
        exec(tests, namespace)
        passed = True
    except ProgramGone:
        pass
    except SystemExit as stop:
        say("repute-sandbox: the tests exited (code " + repr(stop.code) + ") before they finished\n")
    except BaseException as error:
        try:
            say(explain(error))
        except BaseException:
            say("repute-sandbox: the tests raised " + type(error).__name__ + "\n")
    finish(child_pid, passed, token)


supervise()
`;
}
