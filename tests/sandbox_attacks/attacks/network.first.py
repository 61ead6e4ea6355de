# what: A job at work listens on loopback TCP and UDP, a Unix socket in /tmp and an abstract one.
# together: yes
import os
import socket
import time

open("learnai-started", "w").close()  # the driver starts the other job once it sees this

servers = []
for family, kind, address in ((socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 7391)),
                              (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 7392)),
                              (socket.AF_UNIX, socket.SOCK_STREAM, "/tmp/xjob-sock"),
                              (socket.AF_UNIX, socket.SOCK_STREAM, "\0xjob-abstract")):
    try:
        server = socket.socket(family, kind)
        server.bind(address)
        if kind == socket.SOCK_STREAM:
            server.listen()
        server.settimeout(0.05)
        servers.append(server)
        print("listening", address)
    except OSError as exc:
        print("HELD listen", address, exc.errno)
deadline = time.time() + 6
while time.time() < deadline:
    for server in servers:
        try:
            if server.type == socket.SOCK_STREAM:
                peer, _ = server.accept()
                print("ESCAPED got", peer.recv(100))
            else:
                print("ESCAPED got", server.recv(100))
        except OSError:
            pass
if os.path.exists("/tmp/xjob-sock"):
    os.unlink("/tmp/xjob-sock")
