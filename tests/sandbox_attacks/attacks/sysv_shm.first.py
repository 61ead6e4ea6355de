# what: A job at work keeps data in SysV shared memory (a key anyone can guess).
# together: yes
import ctypes
import time

open("learnai-started", "w").close()  # the driver starts the other job once it sees this

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(0x4C41, 4096, 0o1666)  # IPC_CREAT | 0666
if segment < 0:
    print("HELD shmget", ctypes.get_errno())
else:
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, b"learnai-secret-in-sysv", 22)
    time.sleep(6)
    libc.shmctl(segment, 0, None)  # IPC_RMID
