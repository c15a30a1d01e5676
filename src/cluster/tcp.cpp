#include "cluster/tcp.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "gputune/error.h"

namespace gputune {
namespace {

// A rank on a node that vanished (power, network) closes nothing: keep-alive probes notice it
// within about a minute.
void keep_alive(int fd) {
  int on = 1, idle = 30, interval = 10, count = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

}  // namespace

int tcp_listen(std::string* address) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(ErrorCode::kIo, std::string("--mpi: socket: ") + std::strerror(errno));
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 || listen(fd, 256) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw Error(ErrorCode::kIo, "--mpi: cannot listen for the other ranks: " + why);
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  *address = std::string(host) + ":" + std::to_string(ntohs(any.sin_port));
  return fd;
}

int tcp_accept(int listener, int timeout_ms) {
  pollfd p{listener, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) keep_alive(fd);
  return fd;
}

int tcp_connect(const std::string& address, double timeout_s) {
  const size_t colon = address.rfind(':');
  const std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::string why = "no address";
  do {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    if (rc != 0) {
      why = gai_strerror(rc);
    } else {
      for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          freeaddrinfo(found);
          keep_alive(fd);
          return fd;
        }
        why = std::strerror(errno);
        close(fd);
      }
      freeaddrinfo(found);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } while (std::chrono::steady_clock::now() < deadline);
  throw Error(ErrorCode::kIo, "--mpi: cannot reach rank 0 at " + address + " (" + why +
                                  "); expected the ranks' nodes to reach each other over TCP");
}

}  // namespace gputune
