#include "cluster/tcp.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
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

std::string ipv4_text(const sockaddr* address) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  return text;
}

bool is_loopback(const sockaddr* address) {
  return (ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr) >> 24) == 127;
}

// The IPv4 address of the interface named `name`, or "".
std::string interface_address(const std::string& name, bool any_but_loopback) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if (any_but_loopback ? ((a->ifa_flags & IFF_UP) && !is_loopback(a->ifa_addr))
                         : name == a->ifa_name) {
      found = ipv4_text(a->ifa_addr);
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

std::string listen_host(bool all_ranks_here) {
  const char* given = std::getenv("GPUTUNE_MPI_INTERFACE");
  if (given != nullptr && *given != '\0') {
    in_addr parsed{};
    if (inet_pton(AF_INET, given, &parsed) == 1) return given;
    const std::string address = interface_address(given, false);
    if (address.empty()) {
      throw Error(ErrorCode::kUsage, std::string("GPUTUNE_MPI_INTERFACE=") + given +
                                         ": no such interface with an IPv4 address; expected "
                                         "an interface's name (ip -4 addr) or an IPv4 address");
    }
    return address;
  }
  if (all_ranks_here) return "127.0.0.1";
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string address;
  if (getaddrinfo(host, nullptr, &hints, &found) == 0) {
    for (addrinfo* a = found; a != nullptr && address.empty(); a = a->ai_next) {
      if (!is_loopback(a->ai_addr)) address = ipv4_text(a->ai_addr);
    }
    freeaddrinfo(found);
  }
  if (address.empty()) address = interface_address("", true);
  if (address.empty()) {
    throw Error(ErrorCode::kIo, std::string("--mpi: this host (") + host +
                                    ") has no address other ranks can reach; set "
                                    "GPUTUNE_MPI_INTERFACE to the interface they share");
  }
  return address;
}

int tcp_listen(const std::string& host, std::string* address) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(ErrorCode::kIo, std::string("--mpi: socket: ") + std::strerror(errno));
  sockaddr_in at{};
  at.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &at.sin_addr) != 1) {
    close(fd);
    throw Error(ErrorCode::kIo, "--mpi: '" + host + "' is not an IPv4 address to listen on");
  }
  socklen_t length = sizeof at;
  if (bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || listen(fd, 256) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&at), &length) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw Error(ErrorCode::kIo, "--mpi: cannot listen for the other ranks on " + host + ": " + why);
  }
  *address = host + ":" + std::to_string(ntohs(at.sin_port));
  return fd;
}

int tcp_accept(int listener, int timeout_ms, std::string* peer) {
  pollfd p{listener, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return -1;
  sockaddr_in from{};
  socklen_t length = sizeof from;
  const int fd = accept4(listener, reinterpret_cast<sockaddr*>(&from), &length, SOCK_CLOEXEC);
  if (fd >= 0) keep_alive(fd);
  *peer = ipv4_text(reinterpret_cast<const sockaddr*>(&from)) + ":" +
          std::to_string(ntohs(from.sin_port));
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
