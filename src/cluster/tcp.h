#pragma once
#include <string>

namespace gputune {

// Rank 0's listening socket on `host` (an IPv4 address, from listen_host), on a port the
// system picks; `address` becomes "host:port" for the other ranks. Throws Error(kIo).
int tcp_listen(const std::string& host, std::string* address);
// Where rank 0 listens, never every interface: $GPUTUNE_MPI_INTERFACE (an interface's name,
// such as ib0, or an IPv4 address of this host); else 127.0.0.1 when every rank runs on this
// host; else the first address of this host's name that is not a loopback one; else the first
// interface that is up and not a loopback. Throws Error(kIo) naming what it tried.
std::string listen_host(bool all_ranks_here);
// The next connection, or -1 after timeout_ms; `peer` becomes its "address:port".
int tcp_accept(int listener, int timeout_ms, std::string* peer);
// Connects to "host:port", trying again for up to timeout_s while rank 0 is not listening yet.
// Throws Error(kIo) naming the address.
int tcp_connect(const std::string& address, double timeout_s);

}  // namespace gputune
