#pragma once
#include <string>

namespace gputune {

// Rank 0's listening socket on every interface, on a port the system picks; `address` becomes
// "host:port" for the other ranks. Throws Error(kIo).
int tcp_listen(std::string* address);
// The next connection, or -1 after timeout_ms.
int tcp_accept(int listener, int timeout_ms);
// Connects to "host:port", trying again for up to timeout_s while rank 0 is not listening yet.
// Throws Error(kIo) naming the address.
int tcp_connect(const std::string& address, double timeout_s);

}  // namespace gputune
