# what: Talks to the concurrent job over loopback TCP and UDP, its Unix socket and its abstract socket.
import socket
import time

time.sleep(0.5)
escaped = []
for family, kind, address in ((socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 7391)),
                              (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 7392)),
                              (socket.AF_UNIX, socket.SOCK_STREAM, "/tmp/xjob-sock"),
                              (socket.AF_UNIX, socket.SOCK_STREAM, "\0xjob-abstract")):
    try:
        client = socket.socket(family, kind)
        client.settimeout(1)
        client.connect(address)
        client.send(b"hello from another job")
        escaped.append(str(address))
    except OSError as exc:
        print("HELD", address, exc.errno)
print("ESCAPED", escaped) if escaped else print("HELD network")
