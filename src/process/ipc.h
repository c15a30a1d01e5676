#pragma once
// Worker processes and what they say to the driver: fork()ed children on a socket, frames of
// [u32 type][u32 length][payload], payloads in the wire format (core/wire.h). Only this file and
// its .cpp know about fork, sockets and signals.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compile/compiler_wire.h"
#include "core/wire.h"
#include "space/problem.h"

namespace gputune::wire {

void put(Writer& w, const Variant& v);
void get(Reader& r, Variant* v);

}  // namespace gputune::wire

namespace gputune::ipc {

// False when the peer is gone (never raises SIGPIPE).
bool write_frame(int fd, uint32_t type, const std::string& payload);
// False at end of file or on a broken frame.
bool read_frame(int fd, uint32_t* type, std::string* payload);
// The descriptors of `fds` that are readable (or closed), waiting at most timeout_ms (< 0:
// forever) for the first; empty on timeout or when a signal interrupts the wait.
std::vector<int> readable(const std::vector<int>& fds, int timeout_ms);

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the parent's end of the socket
};

// Forks a child that runs body(fd) and _exit()s with what it returns. The child dies with
// this process (PR_SET_PDEATHSIG), ignores SIGINT and SIGTERM (a Ctrl-C is the driver's to
// handle; the driver ends its children) and keeps no descriptor but stdio and fd.
Child spawn(const std::function<int(int fd)>& body);
// Closes the socket, SIGKILLs the child and reaps it; returns its wait status.
int kill_child(Child* child);
// Closes the socket and waits up to grace_s for the child to exit on its own, then kills it.
int end_child(Child* child, double grace_s);
// "killed by signal 11 (Segmentation fault)", "exit code 3".
std::string describe_exit(int wait_status);

}  // namespace gputune::ipc
