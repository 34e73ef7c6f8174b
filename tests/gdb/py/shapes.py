# Stack shapes in threads of their own: recursion, a generator, Python called
# back from C (sorted's key function), a C extension that releases the GIL
# (hashlib on big buffers), and a thread started from C that never runs Python.
import ctypes
import hashlib
import sys
import threading

def rec(n):
    if n == 0:
        x = 0
        for i in range(20000):
            x += i
        return x
    return rec(n - 1)

def recursion():
    while True:
        rec(25)

def produce():
    i = 0
    while True:
        s = 0
        for k in range(300):
            s += k
        yield s
        i += 1

def consume():
    for _ in produce():
        pass

def keyf(v):
    s = 0
    for k in range(30):
        s += k
    return -v

def sort_it():
    data = list(range(2000))
    while True:
        sorted(data, key=keyf)

def hash_loop():
    buf = b"x" * (8 << 20)
    while True:
        hashlib.sha256(buf).digest()

def native_thread():
    # pthread_create(&t, NULL, pause, NULL): a thread that only ever waits in C
    libc = ctypes.CDLL(None)
    t = ctypes.c_ulong()
    start = ctypes.cast(libc.pause, ctypes.c_void_p)
    if libc.pthread_create(ctypes.byref(t), None, start, None) != 0:
        sys.exit("pthread_create failed")

native_thread()
for f in (recursion, consume, sort_it, hash_loop):
    threading.Thread(target=f, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
