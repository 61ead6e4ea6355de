# what: Attaches the concurrent job's SysV segment by its key and reads it.
import ctypes
import time

time.sleep(0.5)
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(0x4C41, 4096, 0)
if segment < 0:
    print("HELD shmget", ctypes.get_errno())
else:
    address = libc.shmat(segment, None, 0)
    print("ESCAPED", ctypes.string_at(address, 22))
